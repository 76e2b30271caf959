/**
 * 0x-hex byte strings handled as strings: ethers' concat, dataSlice, dataLength, zeroPadValue and toBeHex turn each
 * argument into bytes and back, which cost more than the rest of packing an operation (its call data, its
 * paymasterAndData, several times an operation). These give the same results (lower-case hex) and refuse what
 * ethers refuses; tests hold them to ethers.
 */

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/** The hex digits of `data` (lower case), after checking it is 0x and whole bytes. */
function digits(data: string): string {
  if (!HEX_BYTES.test(data)) throw new TypeError(`not hex bytes: ${data.slice(0, 24)}`);
  return data.slice(2).toLowerCase();
}

/** The bytes of `parts` one after another (ethers' concat). */
export const concatHex = (parts: readonly string[]): string => `0x${parts.map(digits).join("")}`;

/** How many bytes `data` holds (ethers' dataLength). */
export const hexLength = (data: string): number => digits(data).length / 2;

/** Bytes `start` to `end` of `data` (ethers' dataSlice); past its end is refused. */
export function sliceHex(data: string, start: number, end: number): string {
  const hex = digits(data);
  if (end * 2 > hex.length) throw new RangeError("cannot slice beyond data bounds");
  return `0x${hex.slice(start * 2, end * 2)}`;
}

/** `value` as `bytes` big-endian bytes (ethers' zeroPadValue(toBeHex(value), bytes)); too large or negative is refused. */
export function uintHex(value: bigint | number, bytes: number): string {
  const big = BigInt(value);
  if (big < 0n) throw new RangeError("negative value");
  const hex = big.toString(16);
  if (hex.length > bytes * 2) throw new RangeError(`value does not fit in ${bytes} bytes`);
  return `0x${hex.padStart(bytes * 2, "0")}`;
}
