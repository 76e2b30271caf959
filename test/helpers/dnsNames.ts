import { concat, hexlify, keccak256, toUtf8Bytes, zeroPadValue } from "ethers";

// ethers' dnsEncode and namehash normalize first (ENSIP-15) and refuse what cannot be normalized, such as a
// label "ab--cd"; a resolver must still answer such names, so tests encode them as they are.

/** ENSIP-10 DNS wire format of `name` as written: length-prefixed UTF-8 labels (up to 255 bytes), then 0. */
export function rawDnsEncode(name: string): string {
  const labels = name === "" ? [] : name.split(".").map((label) => toUtf8Bytes(label));
  for (const label of labels) if (label.length === 0 || label.length > 255) throw new Error(`bad label in ${name}`);
  return hexlify(concat([...labels.map((label) => concat([new Uint8Array([label.length]), label])), "0x00"]));
}

/** ENSIP-1 namehash of `name` as written (no normalization). */
export function rawNamehash(name: string): string {
  let node = zeroPadValue("0x", 32);
  if (name === "") return node;
  for (const label of name.split(".").reverse()) node = keccak256(concat([node, keccak256(toUtf8Bytes(label))]));
  return node;
}
