import type { Settlement } from "../../transactions/settlement";

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
