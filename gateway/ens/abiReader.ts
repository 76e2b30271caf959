import { toUtf8String } from "ethers";

/** Data that ethers' AbiCoder refuses to decode as the types asked. */
export class AbiDecodeError extends Error {
  override readonly name = "AbiDecodeError";
}

const WORD = 32;
/** ethers reads at most this many times the data's size (its inflation bound against offsets that point back). */
const MAX_INFLATION = 1024;

/** The bytes of 0x-hex `hex`, refused as ethers' getBytes refuses what is not whole hex bytes. */
export function hexBytes(hex: string): Buffer {
  // Buffer.from stops at the first character that is not hex, or before a last odd one: then the bytes are fewer.
  const bytes = Buffer.from(hex.slice(2), "hex");
  if (!hex.startsWith("0x") || 2 * bytes.length !== hex.length - 2) throw new AbiDecodeError("not 0x-hex bytes");
  return bytes;
}

/**
 * ABI-encoded arguments (what follows a function's selector) read as ethers' AbiCoder reads them, for the types the
 * gateway reads, in any layout the coder accepts, and refused (AbiDecodeError) where it refuses: a word past the end
 * (padding must be there, its content is not checked), an offset or a length of 2^53 or more, an array of more
 * items than its data has words, more bytes read than MAX_INFLATION times the data. Offsets count from the start of
 * the arguments (or of an array's items); data after the last argument is ignored. Held to ethers' decoding on random
 * and malformed calls by the gateway's property tests; no ethers coder runs on the lookup path (hundreds of µs a
 * call, most of the cost of an answer).
 */
export class AbiReader {
  #read = 0;

  constructor(private readonly data: Buffer) {}

  /** The 32 bytes at `at` (a bytes32), as hex without 0x. */
  bytes32(at: number): string {
    this.claim(at, WORD);
    return this.data.toString("hex", at, at + WORD);
  }

  /** The uint256 at `at`. */
  uint256(at: number): bigint {
    return BigInt(`0x${this.bytes32(at)}`);
  }

  /** The dynamic `bytes` whose offset, counted from `base`, is the word at `head`. */
  bytes(base: number, head: number): Buffer {
    const bytes = this.lazyBytes(base, head);
    if (bytes === undefined) throw new AbiDecodeError("a length of 2^53 or more");
    return bytes;
  }

  /**
   * The dynamic `string` whose offset, counted from `base`, is the word at `head`, read when the function returned is
   * called: ethers decodes one whose length is 2^53 or more or that is not UTF-8 and refuses it only when it is read.
   */
  string(base: number, head: number): () => string {
    const bytes = this.lazyBytes(base, head);
    return () => {
      if (bytes === undefined) throw new AbiDecodeError("a length of 2^53 or more");
      for (const byte of bytes) if (byte >= 0x80) return utf8(bytes);
      return bytes.toString("latin1");
    };
  }

  /**
   * The items of the dynamic `bytes[]` whose offset, counted from `base`, is the word at `head`; an item whose length
   * is 2^53 or more is `undefined`, as ethers refuses it only when it is read.
   */
  bytesArray(base: number, head: number): (Buffer | undefined)[] {
    const start = base + this.index(head);
    const count = this.index(start);
    if (count * WORD > this.data.length - start) throw new AbiDecodeError("more items than the data has words");
    const items: (Buffer | undefined)[] = [];
    for (let i = 0; i < count; i++) items.push(this.lazyBytes(start + WORD, start + WORD + i * WORD));
    return items;
  }

  /**
   * Dynamic bytes as ethers' coder reads them: the offset word and the length word must be within the data, and the
   * bytes with their padding; undefined for a length of 2^53 or more, which ethers refuses only when it is read.
   */
  private lazyBytes(base: number, head: number): Buffer | undefined {
    const at = base + this.index(head);
    const length = this.word(at);
    return length === undefined ? undefined : this.span(at, length);
  }

  /** `length` bytes after the length word at `at`, their padding within the data. */
  private span(at: number, length: number): Buffer {
    if (at + WORD + Math.ceil(length / WORD) * WORD > this.data.length) throw new AbiDecodeError("data out of bounds");
    return this.take(at + WORD, length);
  }

  /** The word at `at` as an offset or a count (ethers' readIndex): refused at 2^53 or more. */
  private index(at: number): number {
    const value = this.word(at);
    if (value === undefined) throw new AbiDecodeError("an offset or count of 2^53 or more");
    return value;
  }

  /** The word at `at` as a number, or undefined at 2^53 or more. */
  private word(at: number): number | undefined {
    this.claim(at, WORD);
    const data = this.data;
    // Below 2^53: 25 zero bytes, then at most 0x1f, then six bytes (readUIntBE reads at most six).
    for (let i = at; i < at + WORD - 7; i++) if (data[i] !== 0) return undefined;
    const high = data[at + WORD - 7]!;
    return high < 0x20 ? high * 2 ** 48 + data.readUIntBE(at + WORD - 6, 6) : undefined;
  }

  /** `length` bytes at `at`, counted against the inflation bound. */
  private take(at: number, length: number): Buffer {
    this.claim(at, length);
    return this.data.subarray(at, at + length);
  }

  /** Checks that `length` bytes at `at` are within the data, and counts them against the inflation bound. */
  private claim(at: number, length: number): void {
    if (at + length > this.data.length) throw new AbiDecodeError("data out of bounds");
    this.#read += length;
    if (this.#read > MAX_INFLATION * this.data.length) throw new AbiDecodeError("data read more than 1024 times");
  }
}

/** Strict UTF-8 (ethers' toUtf8String: no overlong forms, surrogates or code points past U+10FFFF). */
function utf8(bytes: Buffer): string {
  try {
    return toUtf8String(bytes);
  } catch {
    throw new AbiDecodeError("a string that is not UTF-8");
  }
}
