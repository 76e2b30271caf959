import type { Transaction } from "kysely";
import type { DatabaseSchema } from "../schema";
import { type SpendLimit, SpendLimitExceededError, whenItFits } from "../../transactions/spendLimits";
import { type NewTx, isSafeTx } from "../../transactions/txRecord";
import { BUCKET_MS, type SpendKey, windowBuckets, windowSpend } from "./spendBuckets";

/**
 * Throws SpendLimitExceededError if `tx` does not fit `limit` beside what the window already counts: the gas of the
 * app's requests on the chain (of its user id, for a user cap) accepted within the period, by minute bucket, at
 * their settled gas once final, else at the gas they reserved; and every reservation still unsettled, whatever its
 * age. Run inside the transaction that stores `tx`, so concurrent acceptances serialize. Reads at most a period's
 * buckets, however many requests the window holds.
 */
export async function checkSpendLimit(
  trx: Transaction<DatabaseSchema>,
  tx: NewTx,
  limit: SpendLimit,
  now: Date,
): Promise<void> {
  const since = new Date(now.getTime() - limit.periodSeconds * 1000);
  const key: SpendKey =
    limit.rule === "userDailyCap" && !isSafeTx(tx)
      ? { appId: tx.appId, scope: "user", userId: tx.userId, chain: tx.chain }
      : { appId: tx.appId, scope: "app", userId: "", chain: tx.chain };
  const usedGas = await windowSpend(trx, key, since);
  const requestGas = tx.reservedGas ?? 0n;
  if (usedGas + requestGas <= limit.limitGas) return;
  // Only a refusal reads the window bucket by bucket, to say when the request would fit (pending reservations
  // assumed settled by the time their bucket leaves the window; overdue ones never leave it by time).
  const buckets = await windowBuckets(trx, key, since)
    .select(["minute", "pending_gas", "settled_gas"])
    .orderBy("minute")
    .execute();
  const freesAt = whenItFits(
    limit,
    buckets.map((b) => ({
      createdAt: new Date(b.minute * BUCKET_MS).toISOString(),
      gas: BigInt(b.pending_gas) + BigInt(b.settled_gas),
    })),
    usedGas,
    requestGas,
  );
  throw new SpendLimitExceededError(limit, usedGas, requestGas, freesAt);
}
