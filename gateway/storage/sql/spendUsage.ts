import type { Transaction } from "kysely";
import type { DatabaseSchema } from "../schema";
import { appSpendKey, firstMinuteAfter, usedGas } from "../../transactions/spendWindow";
import { readWindowSums } from "./spendBuckets";

/**
 * Each app's gas per chain over its window (the app's entry of `since` to now), from the buckets: a few index seeks
 * per app and chain, however many requests the windows hold.
 */
export async function appSpendSince(
  trx: Transaction<DatabaseSchema>,
  since: ReadonlyMap<string, Date>,
): Promise<{ appId: string; chain: string; gas: bigint }[]> {
  const out: { appId: string; chain: string; gas: bigint }[] = [];
  for (const [appId, from] of since) {
    for (const chain of await chainsOf(trx, appId)) {
      const sums = await readWindowSums(trx, appSpendKey(appId, chain), firstMinuteAfter(from));
      out.push({ appId, chain, gas: usedGas(sums) });
    }
  }
  return out;
}

/** The chains an app has buckets on: one index seek per chain (the next chain after the last), not a scan. */
async function chainsOf(trx: Transaction<DatabaseSchema>, appId: string): Promise<string[]> {
  const chains: string[] = [];
  for (;;) {
    const next = await trx
      .selectFrom("spend_buckets")
      .select((eb) => eb.fn.min("chain").as("chain"))
      .where("app_id", "=", appId)
      .where("scope", "=", "app")
      .where("user_id", "=", "")
      .$if(chains.length > 0, (q) => q.where("chain", ">", chains.at(-1)!))
      .executeTakeFirst();
    if (next?.chain == null) return chains;
    chains.push(next.chain);
  }
}
