import { pendingGasOf } from "./spendWindow";
import type { TxOutcome } from "./txOutcome";
import type { TxError, TxStatus } from "./txRecord";

/** Attempts recorded for a request that is only to be closed: beyond any TX_MAX_ATTEMPTS. */
export const CLOSE_WHEN_DUE_ATTEMPTS = 1_000_000;

/** A request as a settlement finds it. */
export interface SettlingRequest {
  readonly status: TxStatus;
  readonly attempts: number;
  /** The worst case it reserved at acceptance. */
  readonly reservedGas: bigint;
  /** What its mined sends burned so far (a Safe relay's). */
  readonly spentGas: bigint;
}

/** Gas to add to a request's spend buckets (its app's and its user id's, at its minute). */
export interface BucketChange {
  readonly pendingGas: bigint;
  readonly settledGas: bigint;
}

/** What recording an outcome changes of a request, and of its spend buckets. */
export type Settlement = {
  /** What its sends burned, this outcome's send included. */
  readonly spentGas: bigint;
  /** The outcome's error; undefined clears the one recorded before. */
  readonly error: TxError | undefined;
} & (
  | {
      readonly status: "queued";
      readonly attempts: number;
      readonly nextAttemptAt: Date;
      /** Its pending gas grew (its sends burned past its reservation); undefined: the buckets stay. */
      readonly buckets: BucketChange | undefined;
    }
  | {
      readonly status: "included" | "failed";
      /** What it cost, which replaces what it reserved. */
      readonly settledGas: bigint;
      readonly transactionHash: string | undefined;
      readonly blockNumber: number | undefined;
      /** Whether its calls succeeded, if it was included and that is known. */
      readonly success: boolean | undefined;
      /** Its pending gas moves to settled: once, by the settlement that made it final. */
      readonly buckets: BucketChange;
    }
);

/**
 * What recording `outcome` changes of `before`, or undefined if it is final already: a final state is final (design
 * §1.4), a late or repeated settlement never rewrites it. A send's gas (`outcome.spentGas`, a mined send for this
 * request alone) is charged whatever became of it.
 */
export function settlementOf(before: SettlingRequest, outcome: TxOutcome): Settlement | undefined {
  if (before.status === "included" || before.status === "failed") return undefined;
  const spentGas = before.spentGas + (outcome.spentGas ?? 0n);
  const pendingBefore = pendingGasOf(before);
  if (outcome.status === "queued") {
    const grown = pendingGasOf({ reservedGas: before.reservedGas, spentGas }) - pendingBefore;
    return {
      status: "queued",
      attempts: attemptsWhenQueued(before, outcome),
      nextAttemptAt: outcome.nextAttemptAt,
      spentGas,
      error: outcome.error,
      buckets: grown > 0n ? { pendingGas: grown, settledGas: 0n } : undefined,
    };
  }
  const settledGas = costOf(before, outcome);
  return {
    status: outcome.status,
    settledGas,
    transactionHash: outcome.transactionHash,
    blockNumber: outcome.blockNumber,
    success: outcome.status === "included" ? outcome.success : undefined,
    spentGas,
    error: outcome.error,
    buckets: { pendingGas: -pendingBefore, settledGas },
  };
}

/**
 * What a request that became final cost: its sends' gas, with this outcome's on top, where either is known; unknown,
 * an included one keeps its reservation or what its sends burned, the larger (it ran, and may have cost that much),
 * and a failed one costs what its sends burned.
 */
function costOf(before: SettlingRequest, outcome: TxOutcome & { status: "included" | "failed" }): bigint {
  if (outcome.gasUsed !== undefined || outcome.spentGas !== undefined) {
    return before.spentGas + (outcome.spentGas ?? 0n) + (outcome.gasUsed ?? 0n);
  }
  return outcome.status === "included" ? pendingGasOf(before) : before.spentGas;
}

/**
 * The attempts of a request back in the queue. Out of attempts (`closeWhenDue`): beyond any limit. An uncharged send
 * takes back the attempt counted when it was recorded as sent; a build that failed before being sent counts as one
 * (sending counts when it is recorded).
 */
function attemptsWhenQueued(before: SettlingRequest, outcome: TxOutcome & { status: "queued" }): number {
  if (outcome.closeWhenDue) return CLOSE_WHEN_DUE_ATTEMPTS;
  if (outcome.uncharged) return before.attempts - (before.status === "submitted" && before.attempts > 0 ? 1 : 0);
  return before.attempts + (before.status === "queued" ? 1 : 0);
}
