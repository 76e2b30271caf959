import { Interface, getBytes, isHexString } from "ethers";
import { LRUCache } from "lru-cache";
import { ApiError, InvalidRequestError } from "../errors/apiError";
import { deriveWalletAddress } from "../identity/walletAddress";
import type { CcipSigner } from "./ccipSigner";
import { InvalidDnsNameError, decodeDnsName } from "./dnsName";
import { nameToUserId } from "./names";
import { type NameOwner, answerRecord } from "./records";

/** The call the ENS resolver's OffchainLookup sends (ENSIP-10 resolve, answered by the gateway). */
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RESOLVE_SELECTOR = RESOLVE.getFunction("resolve")!.selector;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
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
 * 200 µs a call, most of the cost of an answer).
 */
function decodeCanonicalResolve(callData: string): [name: Uint8Array, record: string] | undefined {
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

/** resolve(bytes,bytes) decoded by ethers, which accepts any valid layout. */
function decodeResolve(callData: string): [name: Uint8Array, record: string] {
  const [name, record] = RESOLVE.decodeFunctionData("resolve", callData) as unknown as [string, string];
  return [getBytes(name), record];
}

/** A signed gateway answer and when its signature expires (unix seconds). */
export interface CcipAnswer {
  readonly data: string;
  readonly expires: number;
}

/** What the gateway needs. */
export interface CcipServiceOptions {
  readonly domain: string;
  readonly kernelFactory: string;
  readonly signer: CcipSigner;
  readonly ttlSeconds: number;
  /** Answers are served from the cache until this many seconds before they expire. */
  readonly refreshMarginSeconds: number;
  readonly clock: () => Date;
  /** When set, only this resolver's lookups are answered. */
  readonly resolver?: string;
  readonly isKnownProvider: (provider: string) => boolean;
  readonly cacheEntries?: number;
}

/** EIP-3668 gateway logic: decode the lookup, map the name to a user id, answer the record, sign, cache. */
export function createCcipService(options: CcipServiceOptions): {
  answer(sender: string, callData: string): CcipAnswer;
} {
  const cache = new LRUCache<string, CcipAnswer>({ max: options.cacheEntries ?? 50_000 });
  const resolver = options.resolver?.toLowerCase();
  const now = () => Math.floor(options.clock().getTime() / 1000);

  const compute = (sender: string, callData: string): CcipAnswer => {
    if (!callData.toLowerCase().startsWith(RESOLVE_SELECTOR)) {
      throw new InvalidRequestError("The call data is not resolve(bytes,bytes)", [], "UNSUPPORTED_CALL");
    }
    let name: Uint8Array;
    let record: string;
    try {
      [name, record] = decodeCanonicalResolve(callData) ?? decodeResolve(callData);
    } catch {
      throw new InvalidRequestError("The call data does not decode as resolve(bytes,bytes)", [], "INVALID_CALL_DATA");
    }
    let owner: NameOwner | undefined;
    try {
      const userId = nameToUserId(decodeDnsName(name), options.domain, options.isKnownProvider);
      owner = userId && { userId, wallet: deriveWalletAddress(options.kernelFactory, "kernel", userId) };
    } catch (error) {
      if (error instanceof InvalidDnsNameError) throw new InvalidRequestError(error.message, [], "INVALID_NAME");
      throw error;
    }
    let result: string;
    try {
      result = answerRecord(record, owner);
    } catch {
      throw new InvalidRequestError("The record call does not decode", [], "INVALID_CALL_DATA");
    }
    const expires = now() + options.ttlSeconds;
    return { data: options.signer.signResponse(sender, expires, callData, result), expires };
  };

  return {
    answer(sender, callData) {
      if (!ADDRESS.test(sender)) throw new InvalidRequestError("sender is not an address", [], "INVALID_SENDER");
      if (!isHexString(callData) || callData.length % 2 !== 0) {
        throw new InvalidRequestError("data is not 0x-prefixed hex bytes", [], "INVALID_CALL_DATA");
      }
      if (resolver !== undefined && sender.toLowerCase() !== resolver) {
        throw new ApiError(400, "UNKNOWN_RESOLVER", "Unknown resolver", "This gateway answers another resolver");
      }
      // ethers lowercases sender and data; other clients may not: one cache entry either way.
      const key = `${sender}${callData}`.toLowerCase();
      const cached = cache.get(key);
      if (cached && cached.expires - options.refreshMarginSeconds > now()) return cached;
      const fresh = compute(sender, callData);
      cache.set(key, fresh);
      return fresh;
    },
  };
}
