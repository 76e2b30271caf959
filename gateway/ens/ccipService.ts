import { createHash } from "node:crypto";
import { isHexString } from "ethers";
import { LRUCache } from "lru-cache";
import { ApiError, InvalidRequestError } from "../errors/apiError";
import { deriveWalletAddress } from "../identity/walletAddress";
import type { CcipSigner } from "./ccipSigner";
import { InvalidDnsNameError, decodeDnsName, dnsNamehash } from "./dnsName";
import { type HasNames, nameToUserId } from "./names";
import { type NameOwner, answerRecord } from "./records";
import { RESOLVE_SELECTOR, decodeResolveCall } from "./resolveCall";
import { LookupTooLargeError, MAX_LOOKUP_CALL_BYTES } from "./lookupLimits";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

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
  /** Providers whose ids have names (built-in, and registered while enabled). */
  readonly hasNames: HasNames;
  /** Changes whenever `hasNames` may answer differently: cached answers of another version are computed again. */
  readonly namesVersion?: () => number;
  /** What the answer cache may hold, in bytes of answers and keys (CCIP_CACHE_MB; 32 MiB when not given). */
  readonly cacheBytes?: number;
}

/** What one cached answer costs beyond its characters: the entry object, its key and the cache's own slots. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * The cache key of a lookup: a SHA-256 digest, so an entry holds 44 characters for it whatever the lookup's size.
 * ethers lowercases sender and data; other clients may not: one entry either way.
 */
const cacheKey = (sender: string, callData: string): string =>
  createHash("sha256").update(sender.toLowerCase()).update(callData.toLowerCase()).digest("base64");

/** EIP-3668 gateway logic: decode the lookup, map the name to a user id, answer the record, sign, cache. */
export function createCcipService(options: CcipServiceOptions): {
  /**
   * The signed answer to a lookup, from the cache while it holds one; else `admit` is awaited first (it throws to
   * refuse: what computing and signing an answer costs is what a client's limit counts) and the answer is computed.
   */
  answer(sender: string, callData: string, admit?: () => Promise<void>): Promise<CcipAnswer>;
} {
  // Each answer remembers the version of the named providers it was computed under. Bounded in bytes, not entries: an
  // answer's size is the lookup's choice (issue 32: 50,000 entries of the largest answers were gigabytes).
  const cache = new LRUCache<string, CcipAnswer & { readonly namesVersion: number }>({
    maxSize: options.cacheBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (entry) => entry.data.length + ENTRY_OVERHEAD_BYTES,
  });
  const namesVersion = options.namesVersion ?? (() => 0);
  const resolver = options.resolver?.toLowerCase();
  const now = () => Math.floor(options.clock().getTime() / 1000);

  const compute = async (sender: string, callData: string): Promise<CcipAnswer> => {
    if (!callData.toLowerCase().startsWith(RESOLVE_SELECTOR)) {
      throw new InvalidRequestError("The call data is not resolve(bytes,bytes)", [], "UNSUPPORTED_CALL");
    }
    const decoded = decodeResolveCall(callData);
    if (decoded === undefined) {
      throw new InvalidRequestError("The call data does not decode as resolve(bytes,bytes)", [], "INVALID_CALL_DATA");
    }
    const [name, record] = decoded;
    let owner: NameOwner | undefined;
    try {
      const userId = nameToUserId(decodeDnsName(name), options.domain, options.hasNames);
      owner = userId && {
        userId,
        wallet: deriveWalletAddress(options.kernelFactory, "kernel", userId),
        node: dnsNamehash(name),
      };
    } catch (error) {
      if (error instanceof InvalidDnsNameError) throw new InvalidRequestError(error.message, [], "INVALID_NAME");
      throw error;
    }
    let result: string;
    try {
      result = answerRecord(record, owner);
    } catch (error) {
      if (error instanceof LookupTooLargeError) throw error;
      throw new InvalidRequestError("The record call does not decode", [], "INVALID_CALL_DATA");
    }
    const expires = now() + options.ttlSeconds;
    return { data: await options.signer.signResponse(sender, expires, callData, result), expires };
  };

  return {
    async answer(sender, callData, admit) {
      if (!ADDRESS.test(sender)) throw new InvalidRequestError("sender is not an address", [], "INVALID_SENDER");
      if (callData.length > 2 + 2 * MAX_LOOKUP_CALL_BYTES) {
        throw new LookupTooLargeError(`A lookup's call data may be at most ${MAX_LOOKUP_CALL_BYTES} bytes`);
      }
      if (!isHexString(callData) || callData.length % 2 !== 0) {
        throw new InvalidRequestError("data is not 0x-prefixed hex bytes", [], "INVALID_CALL_DATA");
      }
      if (resolver !== undefined && sender.toLowerCase() !== resolver) {
        throw new ApiError(400, "UNKNOWN_RESOLVER", "Unknown resolver", "This gateway answers another resolver");
      }
      const key = cacheKey(sender, callData);
      const version = namesVersion();
      const cached = cache.get(key);
      // A provider registered or removed since: the name may now stand for someone else, or for nobody.
      if (cached && cached.namesVersion === version && cached.expires - options.refreshMarginSeconds > now()) {
        return cached;
      }
      await admit?.();
      const fresh = await compute(sender, callData);
      cache.set(key, { ...fresh, namesVersion: version });
      return fresh;
    },
  };
}
