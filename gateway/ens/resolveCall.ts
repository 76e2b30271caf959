import { Interface, getBytes } from "ethers";

/** The call an OffchainResolver's OffchainLookup sends (ENSIP-10 resolve, answered by the gateway). */
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
/** The 4-byte selector of resolve(bytes,bytes), as 0x-hex. */
export const RESOLVE_SELECTOR = RESOLVE.getFunction("resolve")!.selector;
const SELECTOR_BYTES = 4;
const WORD_BYTES = 32;

/** The value of the ABI word at `offset` if it is below 2^48 (every real offset and length), else -1. */
function smallWord(bytes: Buffer, offset: number): number {
  if (offset + WORD_BYTES > bytes.length) return -1;
  for (let i = offset; i < offset + WORD_BYTES - 6; i++) if (bytes[i] !== 0) return -1;
  return bytes.readUIntBE(offset + WORD_BYTES - 6, 6);
}

const padded = (length: number): number => Math.ceil(length / WORD_BYTES) * WORD_BYTES;

/**
 * resolve(bytes name, bytes data) read straight from the bytes when they are laid out exactly as
 * ethers and the ENS contracts encode them; undefined otherwise, and ethers' Interface decodes (about
 * 200 µs a call, most of the cost of an answer). The selector is the caller's to check. A property test
 * holds it to ethers' decoding on random and malformed calls.
 */
export function decodeCanonicalResolve(callData: string): [name: Uint8Array, record: string] | undefined {
  const bytes = Buffer.from(callData.slice(2), "hex");
  const nameHead = SELECTOR_BYTES + 2 * WORD_BYTES;
  const nameLength = smallWord(bytes, nameHead);
  if (smallWord(bytes, SELECTOR_BYTES) !== 2 * WORD_BYTES || nameLength < 0) return undefined;
  const recordOffset = 2 * WORD_BYTES + WORD_BYTES + padded(nameLength);
  if (smallWord(bytes, SELECTOR_BYTES + WORD_BYTES) !== recordOffset) return undefined;
  const recordHead = SELECTOR_BYTES + recordOffset;
  const recordLength = smallWord(bytes, recordHead);
  if (recordLength < 0 || bytes.length !== recordHead + WORD_BYTES + padded(recordLength)) return undefined;
  const record = bytes.subarray(recordHead + WORD_BYTES, recordHead + WORD_BYTES + recordLength);
  return [bytes.subarray(nameHead + WORD_BYTES, nameHead + WORD_BYTES + nameLength), `0x${record.toString("hex")}`];
}

/** resolve(bytes,bytes) decoded by ethers, which accepts any valid layout; throws on anything else. */
export function decodeResolve(callData: string): [name: Uint8Array, record: string] {
  const [name, record] = RESOLVE.decodeFunctionData("resolve", callData) as unknown as [string, string];
  return [getBytes(name), record];
}
