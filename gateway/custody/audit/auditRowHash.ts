import { createHash } from "node:crypto";
import type { AuditRow } from "./signatureAudit";

/** Names the scheme inside every hash, so no hash of another format can pass for a row's. */
const SCHEME = "idwallet signature audit v1";

/**
 * The fields one after another, each `0x00` if absent, else `0x01`, its UTF-8 length as 4 bytes big-endian, and its
 * UTF-8 bytes: a prefix-free encoding, so no two different lists encode alike (an absent field is not an empty one).
 */
export function encodeFields(fields: ReadonlyArray<string | undefined>): Buffer {
  let size = 0;
  for (const field of fields) size += field === undefined ? 1 : 5 + Buffer.byteLength(field, "utf8");
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const field of fields) {
    if (field === undefined) {
      out[at++] = 0;
      continue;
    }
    out[at] = 1;
    const length = out.write(field, at + 5, "utf8");
    out.writeUInt32BE(length, at + 1);
    at += 5 + length;
  }
  return out;
}

/** The encoded scheme name, `prevHash` and every field of `row` in a fixed order: what a row's hash or tag is over. */
export function encodeAuditRow(scheme: string, prevHash: string, row: Omit<AuditRow, "prevHash" | "hash">): Buffer {
  if (!Number.isSafeInteger(row.seq) || row.seq < 1) throw new RangeError(`seq must be a positive integer: ${row.seq}`);
  return encodeFields([
    scheme,
    prevHash,
    String(row.seq),
    row.at,
    row.purpose,
    row.signer,
    row.digest,
    row.signature,
    row.appId,
    row.userId,
    row.chain,
    // Only a custody root has it: every other row encodes (and hashes) exactly as before the field existed.
    ...(row.covers ? [row.covers.join(",")] : []),
  ]);
}

/**
 * The hash of a row of the signature audit log, as 0x-hex: SHA-256 over the encoded scheme name, `prevHash` and every
 * field of the row in a fixed order (seq in decimal, at, purpose, signer, digest, signature, appId, userId, chain, and a
 * custody root's covered hashes joined by commas).
 * The row's own `prevHash` and `hash`, if it has them, are not read: the caller says which hash it links to. Anyone
 * can compute it: the rows written before AUDIT_LOG_KEY carry it (auditKey.ts has the keyed tag of the rows after).
 */
export function auditRowHash(prevHash: string, row: Omit<AuditRow, "prevHash" | "hash">): string {
  return `0x${createHash("sha256")
    .update(encodeAuditRow(SCHEME, prevHash, row))
    .digest("hex")}`;
}
