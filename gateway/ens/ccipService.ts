import { isHexString } from "ethers";
import { LRUCache } from "lru-cache";
import { ApiError, InvalidRequestError } from "../errors/apiError";
import { deriveWalletAddress } from "../identity/walletAddress";
import type { CcipSigner } from "./ccipSigner";
import { InvalidDnsNameError, decodeDnsName, dnsNamehash } from "./dnsName";
import { type HasNames, nameToUserId } from "./names";
import { type NameOwner, answerRecord } from "./records";
import { RESOLVE_SELECTOR, decodeCanonicalResolve, decodeResolve } from "./resolveCall";

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
  readonly cacheEntries?: number;
}

/** EIP-3668 gateway logic: decode the lookup, map the name to a user id, answer the record, sign, cache. */
export function createCcipService(options: CcipServiceOptions): {
  answer(sender: string, callData: string): Promise<CcipAnswer>;
} {
  // Each answer remembers the version of the named providers it was computed under.
  const cache = new LRUCache<string, CcipAnswer & { readonly namesVersion: number }>({
    max: options.cacheEntries ?? 50_000,
  });
  const namesVersion = options.namesVersion ?? (() => 0);
  const resolver = options.resolver?.toLowerCase();
  const now = () => Math.floor(options.clock().getTime() / 1000);

  const compute = async (sender: string, callData: string): Promise<CcipAnswer> => {
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
    } catch {
      throw new InvalidRequestError("The record call does not decode", [], "INVALID_CALL_DATA");
    }
    const expires = now() + options.ttlSeconds;
    return { data: await options.signer.signResponse(sender, expires, callData, result), expires };
  };

  return {
    async answer(sender, callData) {
      if (!ADDRESS.test(sender)) throw new InvalidRequestError("sender is not an address", [], "INVALID_SENDER");
      if (!isHexString(callData) || callData.length % 2 !== 0) {
        throw new InvalidRequestError("data is not 0x-prefixed hex bytes", [], "INVALID_CALL_DATA");
      }
      if (resolver !== undefined && sender.toLowerCase() !== resolver) {
        throw new ApiError(400, "UNKNOWN_RESOLVER", "Unknown resolver", "This gateway answers another resolver");
      }
      // ethers lowercases sender and data; other clients may not: one cache entry either way.
      const key = `${sender}${callData}`.toLowerCase();
      const version = namesVersion();
      const cached = cache.get(key);
      // A provider registered or removed since: the name may now stand for someone else, or for nobody.
      if (cached && cached.namesVersion === version && cached.expires - options.refreshMarginSeconds > now()) {
        return cached;
      }
      const fresh = await compute(sender, callData);
      cache.set(key, { ...fresh, namesVersion: version });
      return fresh;
    },
  };
}
