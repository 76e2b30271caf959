import { sql } from "kysely";
import type { TxOutcome } from "../../transactions/txOutcome";

/** Attempts recorded for a request that is only to be closed: beyond any TX_MAX_ATTEMPTS. */
const CLOSE_WHEN_DUE_ATTEMPTS = 1_000_000;

/**
 * The columns of a request that `outcome` sets (spent gas and the update time apart): queued again, with its next
 * attempt and how that attempt counts; or final, with what it cost and what the chain said.
 */
export function outcomeColumns(outcome: TxOutcome) {
  const error = { error_code: outcome.error?.code ?? null, error_message: outcome.error?.message ?? null };
  // Gas of a mined send for this request alone, charged whatever became of it (SET reads the old spent_gas).
  const spent = Number(outcome.spentGas ?? 0n);
  return outcome.status === "queued"
    ? {
        status: "queued" as const,
        bundle_id: null,
        next_attempt_at: outcome.nextAttemptAt.toISOString(),
        // A build that failed before being sent counts as an attempt too (sending counts in submitOp).
        // An uncharged send takes back what submitOp counted when the operation was recorded as sent.
        attempts: outcome.closeWhenDue
          ? CLOSE_WHEN_DUE_ATTEMPTS
          : outcome.uncharged
            ? sql<number>`attempts - (case when status = 'submitted' and attempts > 0 then 1 else 0 end)`
            : sql<number>`attempts + (case when status = 'queued' then 1 else 0 end)`,
        ...error,
      }
    : {
        status: outcome.status,
        // What it cost (its sends' gas, with this one's) replaces what it reserved; unknown: an included one
        // keeps its reservation (it ran, and may have cost that much), a failed one costs what its sends burned.
        settled_gas:
          outcome.gasUsed !== undefined || outcome.spentGas !== undefined
            ? sql<number>`spent_gas + ${spent} + ${Number(outcome.gasUsed ?? 0n)}`
            : outcome.status === "included"
              ? // The larger of the two (SQLite's max(a, b), which PostgreSQL spells greatest).
                sql<number>`case when reserved_gas > spent_gas then reserved_gas else spent_gas end`
              : sql<number>`spent_gas`,
        transaction_hash: outcome.transactionHash ?? null,
        block_number: outcome.blockNumber ?? null,
        success:
          outcome.status === "included" && outcome.success !== undefined
            ? outcome.success
              ? (1 as const)
              : (0 as const)
            : null,
        ...error,
      };
}
