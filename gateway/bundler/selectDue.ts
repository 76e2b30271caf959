import type { TxRecord } from "../storage/transactionsRepository";
import { isExhausted } from "./retryPolicy";
import { closeExhausted } from "./userOperation/operationOutcomes";
import type { WorkerContext } from "./workerContext";

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
