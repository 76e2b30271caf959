import type { Bundle } from "../../transactions/bundle";
import type { TxError, TxRecord } from "../../transactions/txRecord";
import type { TxOutcome } from "../../transactions/txOutcome";
import type { OperationContext } from "../../userop/bundling/operationContext";
import type { RelayerReceipt, WorkKind, WorkKinds } from "../../relaying/workKind";
import type { OwnTransactions } from "../../relaying/ownTransactions";

/** Closes a mined bundle: each request's outcome as its kind reads the receipt, in one transaction. */
export async function settleMined(
  context: OperationContext,
  kinds: WorkKinds,
  own: OwnTransactions,
  bundle: Bundle,
  receipt: RelayerReceipt,
): Promise<void> {
  const reverted = receipt.status !== "0x1";
  // A reverted bundle of ours is not "our own block" to the skip of the pre-broadcast check: the next bundle is
  // run against the chain first, so a revert that would happen again (not an outsider's one-off) is caught there
  // and charged to the operation the EntryPoint names, instead of reverting on chain again, uncharged.
  if (reverted) own.forget(receipt.transactionHash);
  const outcomes = new Map<string, TxOutcome>();
  const groups = byKind(kinds, await context.repository.bundleOps(bundle.id));
  for (const [kind, txs] of groups) {
    for (const [id, outcome] of await kind.outcomesOfReceipt(txs, receipt)) outcomes.set(id, outcome);
  }
  // A reverted bundle charged to none of its requests (wallet operations): its gas is recorded as the relayer's loss.
  const unattributed = reverted && ![...groups.keys()].some((kind) => kind.chargesRelayerGas);
  await context.repository.settleBundle(
    bundle.id,
    {
      status: "mined",
      minedTxHash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
      ...(unattributed ? { revertedGas: BigInt(receipt.gasUsed) } : {}),
    },
    outcomes,
  );
  context.logger.info({ bundle: bundle.id, tx: receipt.transactionHash, ops: outcomes.size, reverted }, "bundle mined");
}

/**
 * A bundle that never landed (refused by the node, or its relayer nonce used by another transaction of the key):
 * each request not run elsewhere goes back to the queue, charged the send. Unlike a reverted bundle it cost no
 * gas, but nothing says which request, if any, was at fault, and a refusal repeated uncharged would hold up the
 * chain's queue for ever; the attempt bound ends it. An outsider can cause neither (it spends no relayer nonce).
 */
export async function settleDropped(
  context: OperationContext,
  kinds: WorkKinds,
  bundle: Bundle,
  error?: TxError,
): Promise<void> {
  const outcomes = new Map<string, TxOutcome>();
  for (const tx of await context.repository.bundleOps(bundle.id)) {
    const outcome = await kinds.of(tx).outcomeWhenMissing(tx, false);
    outcomes.set(tx.id, outcome.status === "queued" && error ? { ...outcome, error } : outcome);
  }
  await context.repository.settleBundle(bundle.id, { status: "dropped" }, outcomes);
  context.logger.warn({ bundle: bundle.id, ...(error ? { error } : {}) }, "bundle dropped");
}

/** A bundle's requests by kind (a relayer transaction carries one kind), in their order. */
function byKind(kinds: WorkKinds, txs: readonly TxRecord[]): Map<WorkKind, TxRecord[]> {
  const groups = new Map<WorkKind, TxRecord[]>();
  for (const tx of txs) {
    const kind = kinds.of(tx);
    const group = groups.get(kind);
    if (group) group.push(tx);
    else groups.set(kind, [tx]);
  }
  return groups;
}
