import { openDatabase } from "../../gateway/storage/database";
import { NATIVE_ASSET } from "../../gateway/dust/dustModel";
import { createRepositories } from "../../gateway/storage/repositories";

/** USD price of the demo ERC-20 in the local stack's price table. */
export const DEMO_TOKEN_USD = 0.5;

/**
 * Gives the dust interface of the local chain something real to show: the demo ERC-20 listed as sweepable
 * (18 decimals, 0.50 USD in the price table) and the native coin priced by the stack's ETH/USD feed, a
 * Chainlink-style AggregatorV3 contract. Safe to run on every start: each entry is set, not added twice.
 */
export async function prepareDemoDust(
  databasePath: string,
  chain: string,
  contracts: { erc20: string; ethUsdFeed: string },
): Promise<void> {
  const database = await openDatabase(databasePath);
  try {
    const { dust } = createRepositories(database.db, () => new Date());
    await dust.putToken({ chain, address: contracts.erc20, symbol: "DEMO", decimals: 18, listing: "sweepable" });
    await dust.putPrice({ chain, asset: contracts.erc20, usd: DEMO_TOKEN_USD });
    await dust.putPrice({ chain, asset: NATIVE_ASSET, feed: contracts.ethUsdFeed });
  } finally {
    await database.close();
  }
}
