import { toBeHex } from "ethers";
import { revertDataOf } from "../chains/revertData";
import { safeInterface } from "../safe/safeArtifacts";
import { encodeExecTransaction, safeTxHash, signSafeTx } from "../safe/safeTransaction";
import type { BuiltSafeTx, TxOutcome, TxRecord } from "../storage/transactionsRepository";
import type { OperationFailure } from "../transactions/failureCodes";
import { describeRevert } from "./revertReason";
import { type WorkerContext, outcomeOfFailure } from "./workerContext";

/** Margin over eth_estimateGas for a relayed Safe transaction (the 1/64 rule, state moving between blocks). */
const GAS_MARGIN_PERCENT = 20n;
const GAS_MARGIN_MIN = 20_000n;
/** How far back the Safe's ExecutionSuccess of a transaction is searched for. */
const LOOKBACK_BLOCKS = 50_000;

const EXECUTION_SUCCESS = safeInterface.getEvent("ExecutionSuccess")!.topicHash;
const EXECUTION_FAILURE = safeInterface.getEvent("ExecutionFailure")!.topicHash;
/** ERC-6093 errors that mean the Safe holds too little of what it was asked to pay out. */
const INSUFFICIENT = /^(ERC20InsufficientBalance|ERC1155InsufficientBalance)\(/;

/** A Safe request ready for the relayer: the call it sends, with its gas limit, and what it records. */
export interface SafeRelay {
  readonly to: string;
  readonly data: string;
  readonly gasLimit: bigint;
  readonly built: BuiltSafeTx;
}

/** What preparing a Safe request found: something to send, or an outcome without sending (failed, already there). */
export type SafePreparation = { readonly relay: SafeRelay } | { readonly outcome: TxOutcome };

/**
 * Builds the relayer's call for a Safe request, checked against the chain first (eth_estimateGas from the relayer,
 * which also runs the Safe transaction: Safe 1.5.0 with safeTxGas and gasPrice 0 reverts with the inner call's
 * own revert data, so a failing call or payout is refused here, with its reason, before anything is sent).
 * A deployment whose Safe already has code is included without sending; a Safe transaction is signed by the
 * operator's owner key for the Safe's current nonce, so at most one transaction per nonce can ever run.
 */
export async function prepareSafeRelay(
  context: WorkerContext,
  tx: TxRecord,
  relayer: string,
): Promise<SafePreparation> {
  const { provider } = context.chain;
  const code = (await provider.send("eth_getCode", [tx.sender, "latest"])) as string;
  const call = tx.calls[0]!;
  if (tx.safeAction === "create") {
    if (code !== "0x") return { outcome: { status: "included", success: true } };
    const gas = await estimate(context, { from: relayer, to: call.to, data: call.data });
    if ("failure" in gas) return { outcome: await failed(context, tx, "SAFE_DEPLOYMENT_FAILED", gas.failure) };
    return { relay: { to: call.to, data: call.data, gasLimit: gas.limit, built: { txId: tx.id, safeTx: undefined } } };
  }
  if (code === "0x") {
    return {
      outcome: await retryLater(context, tx, {
        code: "SAFE_NOT_DEPLOYED",
        action: "retry",
        message: "the Safe is not deployed (yet): its deployment has not been included",
      }),
    };
  }
  const operator = context.safeOperator;
  if (!operator) {
    return { outcome: { status: "failed", error: { code: "SAFE_NOT_CONFIGURED", message: "no operator key" } } };
  }
  const nonce = BigInt(
    await provider.send("eth_call", [{ to: tx.sender, data: safeInterface.encodeFunctionData("nonce") }, "latest"]),
  );
  const safeCall = { to: call.to, value: call.value, data: call.data, operation: tx.delegatecall ? 1 : 0 } as const;
  const hash = safeTxHash(BigInt(context.chain.chainId), tx.sender, safeCall, nonce);
  const data = encodeExecTransaction(safeCall, signSafeTx(operator, hash));
  const gas = await estimate(context, { from: relayer, to: tx.sender, data });
  if ("failure" in gas) return { outcome: await failed(context, tx, "EXECUTION_REVERTED", gas.failure) };
  return {
    relay: { to: tx.sender, data, gasLimit: gas.limit, built: { txId: tx.id, safeTx: { hash, nonce: Number(nonce) } } },
  };
}

/** eth_estimateGas with a margin; a revert becomes its readable reason. */
async function estimate(
  context: WorkerContext,
  call: { from: string; to: string; data: string },
): Promise<{ limit: bigint } | { failure: string }> {
  try {
    const gas = BigInt(await context.chain.provider.send("eth_estimateGas", [call]));
    const margin = (gas * GAS_MARGIN_PERCENT) / 100n;
    return { limit: gas + (margin > GAS_MARGIN_MIN ? margin : GAS_MARGIN_MIN) };
  } catch (error) {
    const data = revertDataOf(error);
    if (data === undefined && !isRevert(error)) throw error; // the node, not the call: try again later
    return { failure: describeRevert(data ?? "0x") };
  }
}

/** Whether a node error says the call reverted (some nodes give no revert data for an empty revert). */
const isRevert = (error: unknown): boolean =>
  /revert|execution reverted|insufficient funds|exceeds balance/i.test(String((error as Error)?.message ?? error));

/** A final failure with the call's reason: INSUFFICIENT_BALANCE when a token says the Safe holds too little. */
async function failed(context: WorkerContext, tx: TxRecord, code: string, reason: string): Promise<TxOutcome> {
  const insufficient =
    INSUFFICIENT.test(reason) || (reason === "reverted without a reason" && (await shortOfCoin(context, tx)));
  return {
    status: "failed",
    error: insufficient
      ? { code: "INSUFFICIENT_BALANCE", message: `the Safe holds too little: ${reason}` }
      : { code, message: reason },
  };
}

/** Whether the Safe's native balance is below what a plain transfer asks (a native send reverts without reason). */
async function shortOfCoin(context: WorkerContext, tx: TxRecord): Promise<boolean> {
  const call = tx.calls[0]!;
  if (tx.delegatecall || call.value === 0n) return false;
  const balance = BigInt(await context.chain.provider.send("eth_getBalance", [tx.sender, "latest"]));
  return balance < call.value;
}

/** A retryable failure: back to the queue until the request's attempts run out. */
const retryLater = (context: WorkerContext, tx: TxRecord, failure: OperationFailure): Promise<TxOutcome> =>
  outcomeOfFailure(context, tx, failure);

/**
 * What a mined relayer transaction did for a Safe request: a deployment is included; a Safe transaction is
 * included by its ExecutionSuccess (ExecutionFailure: included, unsuccessful). A reverted relayer transaction
 * goes back to the queue: its Safe nonce was not used, so the rebuilt transaction replaces it.
 */
export async function safeOutcomeOfReceipt(
  context: WorkerContext,
  tx: TxRecord,
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
      action: "retry",
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
 * nonce): a deployment is included if the Safe has code; a Safe transaction is included if its hash was executed
 * (the Safe's nonce moved past it and its ExecutionSuccess is found), else it is built again (with the Safe's new
 * nonce if another transaction used this one: the old signature can then never run).
 */
export async function safeMissingOutcome(context: WorkerContext, tx: TxRecord): Promise<TxOutcome> {
  const { provider } = context.chain;
  if (tx.safeAction === "create") {
    const code = (await provider.send("eth_getCode", [tx.sender, "latest"])) as string;
    if (code !== "0x") return { status: "included", success: true };
  } else if (tx.safeTxHash !== undefined && tx.safeNonce !== undefined) {
    const nonce = BigInt(
      await provider.send("eth_call", [{ to: tx.sender, data: safeInterface.encodeFunctionData("nonce") }, "latest"]),
    );
    if (nonce > BigInt(tx.safeNonce)) {
      const executed = await findExecution(context, tx.sender, tx.safeTxHash);
      if (executed) return { status: "included", success: true, ...executed };
    }
  }
  return retryLater(context, tx, {
    code: "NOT_INCLUDED",
    action: "retry",
    message: "the relayer's transaction was not mined",
  });
}

/** The transaction and block of the Safe's ExecutionSuccess for `hash`, within the look-back. */
async function findExecution(
  context: WorkerContext,
  safe: string,
  hash: string,
): Promise<{ transactionHash: string; blockNumber: number } | undefined> {
  const { provider } = context.chain;
  const latest = Number(await provider.send("eth_blockNumber", []));
  const logs = (await provider.send("eth_getLogs", [
    {
      address: safe,
      fromBlock: toBeHex(Math.max(0, latest - LOOKBACK_BLOCKS)),
      toBlock: "latest",
      topics: [EXECUTION_SUCCESS, hash],
    },
  ])) as { transactionHash: string; blockNumber: string }[];
  const log = logs[0];
  return log && { transactionHash: log.transactionHash, blockNumber: Number(log.blockNumber) };
}
