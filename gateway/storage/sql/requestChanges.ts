import type { Selectable, Transaction } from "kysely";
import type { BundlesTable, DatabaseSchema } from "../schema";
import type { Bundle } from "../../transactions/bundle";
import {
  CANCELLED_BY_OPERATOR,
  type CancelOutcome,
  RequestClosedError,
} from "../../transactions/transactionsRepository";
import { lockRows } from "./dialect/rowLocks";
import { StoredHashes, toBundle } from "./transactionRows";

/**
 * Throws RequestClosedError if the final request a build was recorded for is one an operator cancelled (it must not
 * be sent); a late write about a request final otherwise (included, or failed by the chain) changes nothing, as before.
 */
export async function failIfCancelled(trx: Transaction<DatabaseSchema>, txId: string): Promise<void> {
  const row = await trx.selectFrom("transactions").select("error_code").where("id", "=", txId).executeTakeFirst();
  if (row?.error_code === CANCELLED_BY_OPERATOR) throw new RequestClosedError(txId);
}

/** Whether a request may be cancelled, read with its row locked until the transaction ends. */
export async function cancellable(
  trx: Transaction<DatabaseSchema>,
  txId: string,
): Promise<Exclude<CancelOutcome, "cancelled"> | "cancellable"> {
  const row = await trx
    .selectFrom("transactions")
    .select(["status", "attempts"])
    .where("id", "=", txId)
    .$call(lockRows(trx, "update"))
    .executeTakeFirst();
  if (row === undefined) return "missing";
  if (row.status === "included" || row.status === "failed") return "final";
  // Built once (a signed build of it may still run) or sent: only the chain decides now.
  return row.status === "queued" && row.attempts === 0 ? "cancellable" : "built";
}

/** TransactionsRepository.replaceBundleTx's write: a pending bundle's fee-bumped version, appended to its hashes. */
export async function replaceBundleRow(
  trx: Transaction<DatabaseSchema>,
  bundleId: string,
  replacement: { txHash: string; rawTx: string; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  clock: Date,
): Promise<Bundle> {
  const row = await trx
    .selectFrom("bundles")
    .selectAll()
    .where("id", "=", bundleId)
    // A concurrent replacement waits, then appends to this one's hashes.
    .$call(lockRows(trx, "update"))
    .executeTakeFirstOrThrow();
  const now = clock.toISOString();
  const updated: Selectable<BundlesTable> = {
    ...row,
    tx_hashes: JSON.stringify([...StoredHashes.parse(JSON.parse(row.tx_hashes)), replacement.txHash]),
    raw_tx: replacement.rawTx,
    max_fee_per_gas: replacement.maxFeePerGas.toString(),
    max_priority_fee_per_gas: replacement.maxPriorityFeePerGas.toString(),
    updated_at: now,
    sent_at: now,
  };
  await trx.updateTable("bundles").set(updated).where("id", "=", bundleId).execute();
  return toBundle(updated);
}
