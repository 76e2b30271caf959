import type { TxRecord } from "../transactions/txRecord";
import { isExhausted } from "../relaying/retryPolicy";
import type { OperationContext } from "../userop/bundling/operationContext";
import type { WorkKinds } from "../relaying/workKind";

/**
 * The chain's due requests to prepare now (the oldest of each wallet, as `due` gives them), but none of the wallets
 * in `busy` (their requests are being sent): those out of attempts are closed instead, as their kind gives up on
 * them, the rest taken up to `limit`. Undefined when nothing was due at all.
 */
export async function selectDue(
  context: OperationContext,
  kinds: WorkKinds,
  limit: number,
  busy: ReadonlySet<string> = new Set(),
): Promise<TxRecord[] | undefined> {
  const due = await context.repository.due(context.chain.name, context.clock(), limit, busy);
  if (due.length === 0) return undefined;
  const selected: TxRecord[] = [];
  for (const tx of due) {
    const closed = isExhausted(context, tx) ? await kinds.of(tx).giveUp(tx) : undefined;
    if (closed) await context.repository.settle(tx.id, closed);
    else selected.push(tx);
  }
  return selected.slice(0, limit);
}
