import { keccak256Bytes } from "../identity/keccak";

/**
 * ABI words and hashes written out for the UserOperation hot path: ethers' AbiCoder and keccak256 cost
 * ~0.5 ms per operation hash, these ~20 µs. Only static types are encoded here (uint, address, bytes32), each
 * as one 32-byte word, which is all `abi.encode` does for them.
 */

/** The bytes of 0x-hex (assumed well-formed: every caller passes values it produced or validated). */
export const hexToBytes = (hex: string): Buffer => Buffer.from(hex.slice(2), "hex");

/** A uint256 (or uint48, uint64...) as one big-endian word. */
export function uintWord(value: bigint | number): Buffer {
  const hex = BigInt(value).toString(16);
  if (hex.length > 64 || BigInt(value) < 0n) throw new RangeError("value does not fit in uint256");
  return Buffer.from(hex.padStart(64, "0"), "hex");
}

/** An address (20 bytes) or bytes32, left-padded to one word. */
export function hexWord(hex: string): Buffer {
  const bytes = hexToBytes(hex);
  if (bytes.length > 32) throw new RangeError("more than 32 bytes");
  const word = Buffer.alloc(32);
  bytes.copy(word, 32 - bytes.length);
  return word;
}

/** keccak256 of 0x-hex bytes, as a word. */
export const keccakOfHex = (hex: string): Buffer => keccak256Bytes(hexToBytes(hex));

/** keccak256 of the concatenated words, as 0x-hex. */
export const keccakOfWords = (words: readonly Buffer[]): string =>
  `0x${keccak256Bytes(Buffer.concat(words)).toString("hex")}`;

const EIP191_PREFIX_32 = Buffer.from("\x19Ethereum Signed Message:\n32", "utf8");

/** EIP-191 personal-message digest of a 32-byte hash (what `signMessage(getBytes(hash))` signs). */
export const personalDigest = (hash: string): Buffer =>
  keccak256Bytes(Buffer.concat([EIP191_PREFIX_32, hexToBytes(hash)]));
