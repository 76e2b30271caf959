import { type Transaction, sql } from "kysely";
import type { DatabaseSchema } from "../schema";
import { type SpendLimit, SpendLimitExceededError, whenItFits } from "../spendLimits";
import type { NewTx } from "../transactionsRepository";
import { countedGas } from "./countedGas";

/**
 * Throws SpendLimitExceededError if `tx` does not fit `limit` beside what the window already counts: each request of
 * the app on the chain (of its user id, for a user cap) accepted within the period, at its settled gas once final,
 * else at the gas it reserved (or burned, if more). Run inside the transaction that stores `tx`, so concurrent acceptances serialize.
 */
export async function checkSpendLimit(
  trx: Transaction<DatabaseSchema>,
  tx: NewTx,
  limit: SpendLimit,
  now: Date,
): Promise<void> {
  const since = new Date(now.getTime() - limit.periodSeconds * 1000).toISOString();
  const window = trx
    .selectFrom("transactions")
    .where("app_id", "=", tx.appId)
    .where("chain", "=", tx.chain)
    .where("created_at", ">", since)
    .$if(limit.rule === "userDailyCap", (q) => q.where("user_id", "=", tx.userId));
  const counted = countedGas;
  const { used } = await window.select(sql<number | null>`sum(${counted})`.as("used")).executeTakeFirstOrThrow();
  const usedGas = BigInt(used ?? 0);
  const requestGas = tx.reservedGas ?? 0n;
  if (usedGas + requestGas <= limit.limitGas) return;
  // Only a refusal reads the window row by row, to say when the request would fit.
  const entries = await window
    .select(["created_at", counted.as("gas")])
    .orderBy("created_at")
    .execute();
  const freesAt = whenItFits(
    limit,
    entries.map((e) => ({ createdAt: e.created_at, gas: BigInt(e.gas) })),
    usedGas,
    requestGas,
  );
  throw new SpendLimitExceededError(limit, usedGas, requestGas, freesAt);
}
