import { ipBucket } from "../limits/addressBuckets";
import { TooManyRequestsError } from "../errors/apiError";
import type { Limits } from "../limits/limits";

/** How often the dust interface reads wallets on chain (DUST_PER_IP_PER_MINUTE, DUST_READS_PER_SECOND). */
export interface DustViewSettings {
  readonly perIpPerMinute: number;
  readonly readsPerSecond: number;
}

/** Admits one wallet view of GET /api/{address} (its chain reads) or throws 429 RATE_LIMITED with Retry-After. */
export type AdmitDustView = (clientIp: string | undefined, chain: string) => Promise<void>;

/**
 * The limits of the dust interface's chain reads, both counted in the database (every process and instance shares
 * them): per client address (IPv6: per /64) a minute, and per chain a second for everyone together. A wallet view
 * costs one Multicall3 call plus, per listed token the wallet holds, a block number, two eth_getLogs over
 * DUST_LOOKBACK_BLOCKS and a block; answers are cached per wallet, so distinct wallets are what costs. The per-chain
 * cap bounds those RPC calls whatever the number of clients, so anonymous views cannot spend the RPC quota the
 * transaction path needs (design invariant 10).
 */
export function createDustViewLimits(settings: DustViewSettings, limits: Limits): AdmitDustView {
  const perIp = limits.limiter({ name: "dust.view.ip", points: settings.perIpPerMinute, windowSeconds: 60 });
  const perChain = limits.limiter({ name: "dust.view.chain", points: settings.readsPerSecond, windowSeconds: 1 });
  return async (clientIp, chain) => {
    const mine = await perIp.hit(ipBucket(clientIp));
    if (!mine.allowed) {
      const retry = mine.retryAfterSeconds;
      throw new TooManyRequestsError(
        "RATE_LIMITED",
        `Too many wallet views from this address; retry in ${retry} s`,
        retry,
      );
    }
    const all = await perChain.hit(chain);
    if (!all.allowed) {
      const retry = all.retryAfterSeconds;
      throw new TooManyRequestsError(
        "RATE_LIMITED",
        `The dust interface reads ${chain} for at most ${settings.readsPerSecond} wallets a second; retry in ${retry} s`,
        retry,
      );
    }
  };
}
