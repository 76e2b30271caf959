import type { TxOutcome } from "../../transactions/txOutcome";
import type { WalletTxRecord } from "../../transactions/txRecord";
import type { OperationFailure } from "../failureCodes";
import { sponsorshipEnd } from "../sponsorship";
import { giveUp, nextAttemptAt } from "../../relaying/retryPolicy";
import type { OperationContext } from "./operationContext";
import { executedOutcome, findExecutedOperation } from "./operationEvents";

/**
 * What becomes of a request whose operation was rejected: NONCE_ALREADY_USED means some build of it already
 * executed (look it up); `retry` reasons go back to the queue until the attempts run out; the rest fail.
 */
export async function outcomeOfFailure(
  context: OperationContext,
  tx: WalletTxRecord,
  failure: OperationFailure,
): Promise<TxOutcome> {
  if (failure.code === "NONCE_ALREADY_USED") {
    const executed = await findExecutedOperation(context.chain.provider, context.entryPoint, tx);
    if (executed) return executedOutcome(executed);
  }
  const error = { code: failure.code, message: failure.message };
  // An earlier build of it may still be executed by anyone who saw it, until its sponsorship ends.
  if (failure.action === "fail")
    return tx.userOp ? giveUp(context, error, mayRunUntil(tx)) : { status: "failed", error };
  if (tx.attempts + 1 < context.maxAttempts) {
    return { status: "queued", nextAttemptAt: nextAttemptAt(context, tx.attempts + 1), error };
  }
  return giveUp(context, error, mayRunUntil(tx));
}

/** Until when an earlier build of the request could still execute: its sponsorship's end (none if never built). */
const mayRunUntil = (tx: WalletTxRecord): number | undefined =>
  tx.userOp ? sponsorshipEnd(tx.userOp.paymasterAndData) : undefined;

/** Closes a request out of attempts whose builds can no longer execute: included if one did, else failed. */
export async function closeExhausted(context: OperationContext, tx: WalletTxRecord): Promise<TxOutcome> {
  const executed = await findExecutedOperation(context.chain.provider, context.entryPoint, tx);
  if (executed) return executedOutcome(executed);
  return {
    status: "failed",
    error: tx.error ?? { code: "NOT_INCLUDED", message: `not included after ${tx.attempts} attempts` },
  };
}

/**
 * What becomes of a request whose operation was sent but is not in the bundle that was mined (or the bundle was
 * dropped): included if any build of it executed, else back to the queue to be built again.
 */
export async function outcomeOfMissingOperation(
  context: OperationContext,
  tx: WalletTxRecord,
  bundleReverted = false,
): Promise<TxOutcome> {
  const executed = await findExecutedOperation(context.chain.provider, context.entryPoint, tx);
  if (executed) return executedOutcome(executed);
  // A bundle that reverted as a whole (one operation's validation, or an outsider who front-ran it, e.g. by
  // deploying a wallet it was creating) says nothing against this operation: the send is not charged, and the next
  // build's simulation charges whichever operation still fails.
  const attempts = bundleReverted ? Math.max(0, tx.attempts - 1) : tx.attempts;
  if (attempts >= context.maxAttempts) {
    return giveUp(
      context,
      { code: "NOT_INCLUDED", message: `not included after ${attempts} attempts` },
      mayRunUntil(tx),
    );
  }
  return {
    status: "queued",
    nextAttemptAt: nextAttemptAt(context, attempts),
    ...(bundleReverted ? { uncharged: true } : {}),
  };
}
