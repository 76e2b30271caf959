import type { Transaction } from "kysely";
import type { DatabaseSchema } from "../schema";
import { type Settlement, settlementOf } from "../../transactions/settlement";
import { minuteOf, spendKeysOf } from "../../transactions/spendWindow";
import type { TxOutcome } from "../../transactions/txOutcome";
import type { TxRecord } from "../../transactions/txRecord";
import type { WebhookOutbox } from "../../webhooks/webhookOutbox";
import { lockRows } from "./dialect/rowLocks";
import type { BucketAddition } from "./spendBuckets";
import { toRecord } from "./transactionRows";

/** Where a settlement's event goes: the transaction's outbox, through the webhook rules, at the settlement's time. */
export interface SettlementEvents {
  readonly outbox: WebhookOutbox;
  readonly record: (outbox: WebhookOutbox, changed: TxRecord, now: Date) => Promise<void>;
  readonly now: Date;
}

/**
 * Records `outcome` of request `txId` in `trx` as the domain decides it (transactions/settlement.ts), with its event
 * if it made the request final; returns what its spend buckets gain, for the caller to add with the rest of a bundle's.
 */
export async function applyOutcome(
  trx: Transaction<DatabaseSchema>,
  events: SettlementEvents,
  txId: string,
  outcome: TxOutcome,
): Promise<BucketAddition[]> {
  // The row as it is now, locked until the transaction ends: a concurrent settlement waits, then finds this one's.
  const before = await trx
    .selectFrom("transactions")
    .select(["app_id", "user_id", "chain", "created_at", "status", "attempts", "reserved_gas", "spent_gas"])
    .where("id", "=", txId)
    .$call(lockRows(trx, "update"))
    .executeTakeFirst();
  if (before === undefined) return [];
  const change = settlementOf(
    {
      status: before.status,
      attempts: before.attempts,
      reservedGas: BigInt(before.reserved_gas),
      spentGas: BigInt(before.spent_gas),
    },
    outcome,
  );
  if (change === undefined) return [];
  const after = await trx
    .updateTable("transactions")
    .set({ ...settlementColumns(change), spent_gas: Number(change.spentGas), updated_at: events.now.toISOString() })
    .where("id", "=", txId)
    .returningAll()
    .executeTakeFirstOrThrow();
  // Only the settlement that made it final is an event.
  if (change.status !== "queued") await events.record(events.outbox, toRecord(after), events.now);
  if (!change.buckets) return [];
  const minute = minuteOf(before.created_at);
  const keys = spendKeysOf({ appId: before.app_id, userId: before.user_id, chain: before.chain });
  return keys.map((key) => ({ key, minute, ...change.buckets! }));
}

/**
 * The columns of a request that a settlement sets (spent gas and the update time apart), as the domain decided it
 * (transactions/settlement.ts): queued again with its next attempt and attempts, or final with what it cost and what
 * the chain said.
 */
export function settlementColumns(change: Settlement) {
  const error = { error_code: change.error?.code ?? null, error_message: change.error?.message ?? null };
  return change.status === "queued"
    ? {
        status: change.status,
        bundle_id: null,
        next_attempt_at: change.nextAttemptAt.toISOString(),
        attempts: change.attempts,
        ...error,
      }
    : {
        status: change.status,
        settled_gas: Number(change.settledGas),
        transaction_hash: change.transactionHash ?? null,
        block_number: change.blockNumber ?? null,
        success: change.success === undefined ? null : change.success ? (1 as const) : (0 as const),
        ...error,
      };
}
