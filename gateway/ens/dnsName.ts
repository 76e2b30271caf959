import { keccak256Bytes } from "../identity/keccak";

/** A DNS wire-format name that is malformed: bad lengths, missing terminator, or invalid UTF-8. */
export class InvalidDnsNameError extends Error {
  override readonly name = "InvalidDnsNameError";
}

const MAX_NAME_BYTES = 1024;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes an ENSIP-10 DNS-encoded name (length-prefixed labels, zero-terminated) to dotted text.
 * Labels are not normalized here; names.ts applies ENSIP-15.
 */
export function decodeDnsName(bytes: Uint8Array): string {
  if (bytes.length === 0 || bytes.length > MAX_NAME_BYTES) throw new InvalidDnsNameError("name length out of range");
  const labels: string[] = [];
  let offset = 0;
  for (;;) {
    const length = bytes[offset];
    if (length === undefined) throw new InvalidDnsNameError("name has no terminating zero");
    if (length === 0) break;
    const end = offset + 1 + length;
    if (end > bytes.length) throw new InvalidDnsNameError("label runs past the end");
    try {
      labels.push(utf8.decode(bytes.subarray(offset + 1, end)));
    } catch {
      throw new InvalidDnsNameError("label is not UTF-8");
    }
    offset = end;
  }
  if (offset !== bytes.length - 1) throw new InvalidDnsNameError("bytes after the terminating zero");
  return labels.join(".");
}

/** ENSIP-1 namehash of a DNS-encoded name as sent (its labels as they are), 64 lowercase hex digits, no 0x. */
export function dnsNamehash(bytes: Uint8Array): string {
  decodeDnsName(bytes);
  const starts: number[] = [];
  for (let offset = 0; bytes[offset] !== 0; offset += 1 + bytes[offset]!) starts.push(offset);
  let node: Buffer = Buffer.alloc(32);
  for (const start of starts.reverse()) {
    const label = keccak256Bytes(bytes.subarray(start + 1, start + 1 + bytes[start]!));
    node = keccak256Bytes(Buffer.concat([node, label]));
  }
  return node.toString("hex");
}
