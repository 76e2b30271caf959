import type { TxError, TxRecord } from "../transactions/txRecord";
import type { TxOutcome } from "../transactions/txOutcome";
import type { WorkerContext } from "./workerContext";

/** What the retry policy reads of a worker's settings. */
type RetrySettings = Pick<WorkerContext, "maxAttempts" | "retryDelayMs" | "clock">;

const MAX_RETRY_DELAY_MS = 5 * 60_000;
/**
 * How long after a sponsorship's validUntil a request out of attempts is closed: blocks stamped up to validUntil
 * may still be seen for a while (propagation, L2 timestamps, clock skew).
 */
const CLOSE_MARGIN_MS = 120_000;

/** When a request that failed `attempts` times is built again: the retry delay, doubled per attempt, capped. */
export function nextAttemptAt(settings: RetrySettings, attempts: number): Date {
  const delay = Math.min(settings.retryDelayMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  return new Date(settings.clock().getTime() + delay);
}

/** Whether a due request is out of attempts (to be closed, not built again). */
export const isExhausted = (settings: RetrySettings, tx: TxRecord): boolean => tx.attempts >= settings.maxAttempts;

/** Back to the queue for another build, this failure counted; running out is decided when it comes due. */
export const retryLater = (settings: RetrySettings, tx: TxRecord, error: TxError): TxOutcome => ({
  status: "queued",
  nextAttemptAt: nextAttemptAt(settings, tx.attempts + 1),
  error,
});

/**
 * A request out of attempts. An earlier build of it that may still be held somewhere (an external bundler's
 * mempool) could execute until `mayRunUntil` (unix seconds; its sponsorship's end), so it is decided only after
 * that: queued until then, and closed (the kind's give-up) when it comes due.
 */
export function giveUp(settings: RetrySettings, error: TxError, mayRunUntil: number | undefined): TxOutcome {
  if (mayRunUntil !== undefined && mayRunUntil * 1000 >= settings.clock().getTime()) {
    return {
      status: "queued",
      nextAttemptAt: new Date(mayRunUntil * 1000 + CLOSE_MARGIN_MS),
      error,
      closeWhenDue: true,
    };
  }
  return { status: "failed", error };
}
