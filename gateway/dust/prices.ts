import { getAddress } from "ethers";
import { type DustPriceSource, NATIVE_ASSET } from "./dustModel";

/** A Chainlink feed's latest answer as read on chain. */
export interface FeedAnswer {
  readonly answer: bigint;
  readonly decimals: number;
  /** Unix seconds. */
  readonly updatedAt: number;
}

/** USD prices of a chain's assets (token contracts and `native`), as one portfolio view sees them. */
export interface PriceBook {
  /** USD per whole token (or coin), or undefined when the asset has no usable price. */
  usd(asset: string): number | undefined;
}

/** The feed contracts a chain's price sources read. */
export const feedsOf = (sources: readonly DustPriceSource[]): string[] =>
  sources.flatMap((source) => ("feed" in source ? [getAddress(source.feed)] : []));

/**
 * Prices from the admin's table and from Chainlink AggregatorV3 feeds (answers read in the same round trip as
 * the balances). A feed's answer counts only if it is positive and not older than `maxAgeSeconds`: a stalled
 * or broken feed makes the asset unpriced rather than wrongly priced.
 */
export function priceBook(
  sources: readonly DustPriceSource[],
  feeds: ReadonlyMap<string, FeedAnswer | undefined>,
  now: Date,
  maxAgeSeconds: number,
): PriceBook {
  const prices = new Map<string, number>();
  for (const source of sources) {
    const asset = source.asset === NATIVE_ASSET ? NATIVE_ASSET : getAddress(source.asset);
    if ("usd" in source) {
      prices.set(asset, source.usd);
      continue;
    }
    const answer = feeds.get(getAddress(source.feed));
    if (!answer || answer.answer <= 0n) continue;
    if (now.getTime() / 1000 - answer.updatedAt > maxAgeSeconds) continue;
    prices.set(asset, Number(answer.answer) / 10 ** answer.decimals);
  }
  return { usd: (asset) => prices.get(asset === NATIVE_ASSET ? asset : getAddress(asset)) };
}
