import type { Logger } from "pino";
import type { ChainClient } from "../chains/clients";
import { dataLength, dataSlice } from "ethers";
import type { TransactionsRepository, TxError, TxOutcome, TxRecord } from "../storage/transactionsRepository";
import type { OperationFailure } from "../transactions/failureCodes";
import type { OpBuilderDeps } from "../transactions/userOpBuilder";
import { executedOutcome, findExecutedOperation } from "./userOperation/operationEvents";
import { safeMissingOutcome } from "./safeRelay";
import type { DigestSigner } from "../crypto/digestSigner";

/** What a chain's worker (either bundler mode) works with. */
export interface WorkerContext {
  readonly chain: ChainClient;
  readonly repository: TransactionsRepository;
  readonly builder: OpBuilderDeps;
  readonly entryPoint: string;
  /** Blocks a bundle's block needs on top (itself included) before its requests are final. */
  readonly confirmations: number;
  readonly maxOpsPerBundle: number;
  /** Builds of one request before it fails for good. */
  readonly maxAttempts: number;
  /** First retry delay; doubled on each further attempt. */
  readonly retryDelayMs: number;
  readonly clock: () => Date;
  readonly logger: Logger;
  /** The operator's owner key of the Safes created here (SAFE_OPERATOR_KEY), if set. */
  readonly safeOperator?: DigestSigner;
}

const MAX_RETRY_DELAY_MS = 5 * 60_000;
/**
 * How long after a sponsorship's validUntil a request out of attempts is closed: blocks stamped up to validUntil
 * may still be seen for a while (propagation, L2 timestamps, clock skew).
 */
const CLOSE_MARGIN_MS = 120_000;

/** When a request that failed `attempts` times is built again. */
export function nextAttemptAt(context: WorkerContext, attempts: number): Date {
  const delay = Math.min(context.retryDelayMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
  return new Date(context.clock().getTime() + delay);
}

/**
 * What becomes of a request whose operation was rejected: NONCE_ALREADY_USED means some build of it already
 * executed (look it up); `retry` reasons go back to the queue until the attempts run out; the rest fail.
 */
export async function outcomeOfFailure(
  context: WorkerContext,
  tx: TxRecord,
  failure: OperationFailure,
): Promise<TxOutcome> {
  if (failure.code === "NONCE_ALREADY_USED") {
    const executed = await findExecutedOperation(context.chain.provider, context.entryPoint, tx);
    if (executed) return executedOutcome(executed);
  }
  const error = { code: failure.code, message: failure.message };
  // An earlier build of it may still be executed by anyone who saw it, until its sponsorship ends.
  if (failure.action === "fail") return tx.userOp ? exhausted(context, tx, error) : { status: "failed", error };
  if (tx.attempts + 1 < context.maxAttempts) {
    return { status: "queued", nextAttemptAt: nextAttemptAt(context, tx.attempts + 1), error };
  }
  return exhausted(context, tx, error);
}

/**
 * A request out of attempts. An earlier build may still be held somewhere (an external bundler's mempool) and
 * could execute until its sponsorship ends, so it is decided only after that: queued until then, and closed by
 * `closeExhausted` when it comes due.
 */
function exhausted(context: WorkerContext, tx: TxRecord, error: TxError): TxOutcome {
  const end = tx.userOp ? sponsorshipEnd(tx.userOp.paymasterAndData) : undefined;
  if (end !== undefined && end * 1000 >= context.clock().getTime()) {
    return { status: "queued", nextAttemptAt: new Date(end * 1000 + CLOSE_MARGIN_MS), error, closeWhenDue: true };
  }
  return { status: "failed", error };
}

/** Whether a due request is out of attempts (to be closed, not built again). */
export const isExhausted = (context: WorkerContext, tx: TxRecord): boolean => tx.attempts >= context.maxAttempts;

/** Closes a request out of attempts whose builds can no longer execute: included if one did, else failed. */
export async function closeExhausted(context: WorkerContext, tx: TxRecord): Promise<TxOutcome> {
  const executed = await findExecutedOperation(context.chain.provider, context.entryPoint, tx);
  if (executed) return executedOutcome(executed);
  return {
    status: "failed",
    error: tx.error ?? { code: "NOT_INCLUDED", message: `not included after ${tx.attempts} attempts` },
  };
}

/** validUntil (unix seconds) of a SponsorPaymaster paymasterAndData: paymaster(20) ‖ gas(16+16) ‖ validUntil(6). */
function sponsorshipEnd(paymasterAndData: string): number | undefined {
  if (dataLength(paymasterAndData) < 58) return undefined;
  return Number(BigInt(dataSlice(paymasterAndData, 52, 58)));
}

/**
 * What becomes of a request whose operation was sent but is not in the bundle that was mined (or the bundle was
 * dropped): included if any build of it executed, else back to the queue to be built again.
 */
export async function outcomeOfMissingOperation(
  context: WorkerContext,
  tx: TxRecord,
  bundleReverted = false,
): Promise<TxOutcome> {
  if (tx.accountType === "safe") return safeMissingOutcome(context, tx);
  const executed = await findExecutedOperation(context.chain.provider, context.entryPoint, tx);
  if (executed) return executedOutcome(executed);
  // A bundle that reverted as a whole (one operation's validation, or an outsider who front-ran it, e.g. by
  // deploying a wallet it was creating) says nothing against this operation: the send is not charged, and the next
  // build's simulation charges whichever operation still fails.
  const attempts = bundleReverted ? Math.max(0, tx.attempts - 1) : tx.attempts;
  if (attempts >= context.maxAttempts) {
    return exhausted(context, tx, { code: "NOT_INCLUDED", message: `not included after ${attempts} attempts` });
  }
  return {
    status: "queued",
    nextAttemptAt: nextAttemptAt(context, attempts),
    ...(bundleReverted ? { uncharged: true } : {}),
  };
}

/**
 * The chain's due requests to build now (the oldest of each wallet, as `due` gives them), but none of the wallets
 * in `busy` (their requests are being sent): those out of attempts are closed instead (closeExhausted), the rest
 * taken up to `limit`. Undefined when nothing was due at all.
 */
export async function takeDue(
  context: WorkerContext,
  limit: number,
  busy: ReadonlySet<string> = new Set(),
): Promise<TxRecord[] | undefined> {
  const due = (await context.repository.due(context.chain.name, context.clock(), limit * 2 + busy.size)).filter(
    (tx) => !busy.has(tx.sender),
  );
  if (due.length === 0) return undefined;
  const buildable: TxRecord[] = [];
  for (const tx of due) {
    // A Safe request decides running out itself: an earlier build's signature may first need cancelling.
    if (isExhausted(context, tx) && tx.accountType !== "safe") {
      await context.repository.settle(tx.id, await closeExhausted(context, tx));
    } else buildable.push(tx);
  }
  return buildable.slice(0, limit);
}
