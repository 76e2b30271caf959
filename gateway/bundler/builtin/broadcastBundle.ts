import { isTransportError, rpcErrorMessage } from "../../chains/revertData";
import type { Bundle } from "../../transactions/bundle";
import type { TxError } from "../../transactions/txRecord";
import type { OperationContext } from "../../userop/bundling/operationContext";
import type { OwnKind, OwnTransactions } from "../../relaying/ownTransactions";

/** Why the requests of a bundle the node refused go back to the queue. */
export const RELAYER_REJECTED: TxError = {
  code: "RELAYER_REJECTED",
  message: "the node refused the relayer's transaction; the operator has been told",
};

/**
 * Broadcasts a recorded bundle (its newest version), remembered as our own transaction of kind `runs`. A failure
 * the node may not have meant (timeout, connection) or an "already known" leaves it to tracking; a transaction the
 * node neither mined nor holds was "refused", and its requests go back to the queue.
 */
export async function broadcastBundle(
  context: OperationContext,
  own: OwnTransactions,
  bundle: Bundle,
  runs?: OwnKind,
): Promise<"broadcast" | "refused"> {
  const { provider } = context.chain;
  const hash = bundle.txHashes.at(-1)!;
  // A replacement or rebroadcast runs what its earlier version ran; unknown after a restart, it is not counted.
  const ran = runs ?? bundle.txHashes.map((h) => own.kindOf(h)).find((k) => k !== undefined);
  if (ran) own.add(hash, ran);
  try {
    await provider.send("eth_sendRawTransaction", [bundle.rawTx]);
    return "broadcast";
  } catch (error) {
    if (isTransportError(error)) return "broadcast";
    const known =
      (await provider.send("eth_getTransactionReceipt", [hash])) ??
      (await provider.send("eth_getTransactionByHash", [hash]));
    if (known) return "broadcast";
    if (bundle.txHashes.length > 1) return "broadcast"; // an earlier version may still be mined; tracking decides
    // The node's words (balances, the relayer's address) go to the operator's log, not to the apps.
    context.logger.error({ bundle: bundle.id, error: rpcErrorMessage(error) }, "the node refused the bundle");
    return "refused";
  }
}
