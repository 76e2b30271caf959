import type { Transaction } from "kysely";
import type { DatabaseSchema } from "../schema";
import { type SpendLimit, checkSpendLimit } from "../../transactions/spendLimits";
import { minuteOf, spendKeysOf } from "../../transactions/spendWindow";
import type { NewTx, TxRecord } from "../../transactions/txRecord";
import { reserveInBuckets, spendWindowReader } from "./spendBuckets";
import { newTransactionRow, toRecord } from "./transactionRows";

/** The idempotent insert of an accepted request, wallet or Safe, in the transaction of its group commit. */

/**
 * What an accepted request checks before it is stored, as lock keys (see GroupCommit.run): its app's Idempotency-Keys
 * (scoped to the app) and spend (the app's and its user ids' limits). One key per app: concurrent acceptances of one
 * app serialize across instances, as SQLite's write lock serializes them all.
 */
export const acceptLockKeys = (tx: NewTx): string[] => [`accept:${tx.appId}`];

/** The app's earlier request with this Idempotency-Key, if any (keys are scoped to the app). */
export async function earlierRequest(
  trx: Transaction<DatabaseSchema>,
  appId: string,
  idempotencyKey: string,
): Promise<TxRecord | undefined> {
  const row = await trx
    .selectFrom("transactions")
    .selectAll()
    .where("app_id", "=", appId)
    .where("idempotency_key", "=", idempotencyKey)
    .executeTakeFirst();
  return row && toRecord(row);
}

/**
 * Stores a new request, queued and due at once, with its gas reserved: SpendLimitExceededError, nothing stored, if it
 * does not fit every limit in `limits`.
 */
export async function insertRequest(
  trx: Transaction<DatabaseSchema>,
  tx: NewTx,
  limits: readonly SpendLimit[],
  now: Date,
): Promise<TxRecord> {
  const spend = spendWindowReader(trx);
  for (const limit of limits) await checkSpendLimit(spend, tx, limit, now);
  const row = newTransactionRow(tx, now.toISOString());
  await trx.insertInto("transactions").values(row).execute();
  const keys = spendKeysOf({ appId: row.app_id, userId: row.user_id, chain: row.chain });
  await reserveInBuckets(trx, keys, minuteOf(row.created_at), row.reserved_gas);
  return toRecord(row);
}
