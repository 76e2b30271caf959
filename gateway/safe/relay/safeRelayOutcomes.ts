import { safeTxHash } from "../encoding/safeTransaction";
import type { TxOutcome } from "../../transactions/txOutcome";
import type { SafeTxRecord } from "../../transactions/txRecord";
import { retryLater } from "../../relaying/retryPolicy";
import type { WorkerContext } from "../../relaying/workerContext";
import { EXECUTION_FAILURE, EXECUTION_SUCCESS, cancellationCall } from "./relayedSafeTx";
import { SafeUnreadableError, outcomeOfUsedNonce, safeNonce } from "./safeNonce";

/**
 * What a mined relayer transaction did for a Safe request: a deployment is included; a Safe transaction is
 * included by its ExecutionSuccess, and failed (with the recorded reason) if what ran was our cancellation. A
 * reverted relayer transaction goes back to the queue, where the Safe's nonce decides (see prepareSafeRelay).
 */
export async function safeOutcomeOfReceipt(
  context: WorkerContext,
  tx: SafeTxRecord,
  receipt: {
    status: string;
    transactionHash: string;
    blockNumber: string;
    logs: readonly { address: string; topics: string[] }[];
  },
): Promise<TxOutcome> {
  const included = { transactionHash: receipt.transactionHash, blockNumber: Number(receipt.blockNumber) };
  if (receipt.status !== "0x1") {
    return retryLater(context, tx, {
      code: "RELAYED_TX_REVERTED",
      message: "the relayer's transaction reverted on chain; the Safe transaction did not run",
    });
  }
  if (tx.safeAction === "create") return { status: "included", success: true, ...included };
  const event = receipt.logs.find(
    (log) =>
      log.address.toLowerCase() === tx.sender.toLowerCase() &&
      log.topics[1]?.toLowerCase() === tx.safeTxHash?.toLowerCase() &&
      (log.topics[0] === EXECUTION_SUCCESS || log.topics[0] === EXECUTION_FAILURE),
  );
  if (!event) return safeMissingOutcome(context, tx);
  const chainId = BigInt(context.chain.chainId);
  const cancelled =
    tx.safeNonce !== undefined &&
    tx.safeTxHash?.toLowerCase() ===
      safeTxHash(chainId, tx.sender, cancellationCall(tx.sender), BigInt(tx.safeNonce)).toLowerCase();
  if (cancelled) {
    return {
      status: "failed",
      error: tx.error ?? { code: "CANCELLED", message: "the Safe transaction was cancelled" },
    };
  }
  return event.topics[0] === EXECUTION_SUCCESS
    ? { status: "included", success: true, ...included }
    : {
        status: "included",
        success: false,
        ...included,
        error: { code: "EXECUTION_REVERTED", message: "the Safe reported ExecutionFailure" },
      };
}

/**
 * What became of a Safe request whose relayer transaction was not mined (dropped, or replaced by another at its
 * nonce): a deployment is included if the Safe has code; a Safe transaction is settled by its used nonce (see
 * outcomeOfUsedNonce) or goes back to the queue.
 */
export async function safeMissingOutcome(context: WorkerContext, tx: SafeTxRecord): Promise<TxOutcome> {
  const { provider } = context.chain;
  if (tx.safeAction === "create") {
    const code = (await provider.send("eth_getCode", [tx.sender, "latest"])) as string;
    if (code !== "0x") return { status: "included", success: true };
  } else if (tx.safeNonce !== undefined) {
    let nonce: bigint;
    try {
      nonce = await safeNonce(context, tx.sender);
    } catch (error) {
      if (!(error instanceof SafeUnreadableError)) throw error;
      return { status: "failed", error: { code: "SAFE_UNREADABLE", message: error.message } };
    }
    const settled = await outcomeOfUsedNonce(context, tx, nonce);
    if (settled) return settled;
  }
  return retryLater(context, tx, { code: "NOT_INCLUDED", message: "the relayer's transaction was not mined" });
}
