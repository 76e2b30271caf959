import { toBeHex } from "ethers";
import { revertDataOf } from "../chains/revertData";
import { safeInterface } from "../safe/safeArtifacts";
import { type SafeCall, encodeExecTransaction, safeTxHash, signSafeTx } from "../safe/safeTransaction";
import type { BuiltSafeTx, TxError, TxOutcome, TxRecord } from "../storage/transactionsRepository";
import { describeRevert } from "./revertReason";
import { retryLater } from "./retryPolicy";
import type { WorkerContext } from "./workerContext";

/** Margin over eth_estimateGas for a relayed Safe transaction (the 1/64 rule, state moving between blocks). */
const GAS_MARGIN_PERCENT = 20n;
const GAS_MARGIN_MIN = 20_000n;
/** Largest relayer transaction for a Safe request: under EIP-7825's 2^24 and common block limits. */
const MAX_RELAY_GAS = 15_000_000n;
/** How far back, and in what steps (nodes cap log ranges), a Safe's ExecutionSuccess is searched for. */
const LOOKBACK_BLOCKS = 50_000;
const LOG_CHUNK_BLOCKS = 5_000;

const EXECUTION_SUCCESS = safeInterface.getEvent("ExecutionSuccess")!.topicHash;
const EXECUTION_FAILURE = safeInterface.getEvent("ExecutionFailure")!.topicHash;
/** ERC-6093 errors that mean the Safe holds too little of what it was asked to pay out. */
const INSUFFICIENT = /^(ERC20InsufficientBalance|ERC1155InsufficientBalance)\(/;
/** MultiSendCallOnly.multiSend(bytes) selector: a disperse's native total is read from its packed entries. */
const MULTI_SEND = "0x8d80ff0a";

/** A Safe request ready for the relayer: the call it sends, with its gas limit, and what it records. */
export interface SafeRelay {
  readonly to: string;
  readonly data: string;
  readonly gasLimit: bigint;
  readonly built: BuiltSafeTx;
}

/**
 * What preparing a Safe request found: something to send; an outcome reached without sending; or, for a request
 * looked at ahead of the transaction in flight, a failure to confirm once that transaction is settled.
 */
export type SafePreparation =
  { readonly relay: SafeRelay } | { readonly outcome: TxOutcome } | { readonly later: true };

/**
 * Builds the relayer's call for a Safe request, checked against the chain first: eth_estimateGas from the relayer
 * runs the whole Safe transaction (Safe 1.5.0, safeTxGas and gasPrice 0, reverts with the inner call's revert
 * data), so a call that would fail is refused with its reason before anything is sent.
 *
 * Exactly once. A Safe transaction is signed by the operator for the Safe's current nonce, and anyone holding a
 * signed transaction can submit it until that nonce is used. So once a build was broadcast at nonce N (the
 * request's `safeNonce`): if N is used, the request is included if its own transaction at N ran (whoever sent
 * it), failed if our cancellation ran, and otherwise built again at the new nonce (nothing signed for N can run
 * any more). While N is unused, the request is never reported failed: it is sent again, or, if it can no longer
 * succeed (or is out of attempts), N is used up by a cancellation (a no-op Safe transaction at N), and the
 * request fails only once that cancellation ran.
 */
export async function prepareSafeRelay(
  context: WorkerContext,
  tx: TxRecord,
  relayer: string,
  options: { ahead: boolean },
): Promise<SafePreparation> {
  const { provider } = context.chain;
  const code = (await provider.send("eth_getCode", [tx.sender, "latest"])) as string;
  const giveUp = tx.attempts >= context.maxAttempts;
  if (tx.safeAction === "create") return prepareDeployment(context, tx, relayer, code, giveUp, options);
  if (code === "0x") {
    if (giveUp) return { outcome: failed(tx.error ?? SAFE_NOT_DEPLOYED) };
    return { outcome: retryLater(context, tx, SAFE_NOT_DEPLOYED) };
  }
  const operator = context.safeOperator;
  if (!operator) return { outcome: failed({ code: "SAFE_NOT_CONFIGURED", message: "no SAFE_OPERATOR_KEY" }) };
  const nonce = await safeNonce(context, tx.sender);
  let live = false;
  if (tx.safeNonce !== undefined) {
    const settled = await outcomeOfUsedNonce(context, tx, nonce);
    if (settled) return { outcome: settled };
    live = BigInt(tx.safeNonce) === nonce;
  }
  const call = requestCall(tx);
  const sign = (safeCall: SafeCall): { hash: string; data: string } => {
    const hash = safeTxHash(BigInt(context.chain.chainId), tx.sender, safeCall, nonce);
    return { hash, data: encodeExecTransaction(safeCall, signSafeTx(operator, hash)) };
  };
  const attempt = sign(call);
  const gas = giveUp
    ? { failure: tx.error ?? { code: "NOT_INCLUDED", message: `not included after ${tx.attempts} attempts` } }
    : await estimate(context, tx, { from: relayer, to: tx.sender, data: attempt.data });
  if ("limit" in gas) {
    return { relay: { to: tx.sender, data: attempt.data, gasLimit: gas.limit, built: built(tx, attempt.hash, nonce) } };
  }
  if (options.ahead && !giveUp) return { later: true };
  if (!live) return { outcome: failed(gas.failure) };
  // An earlier build at this nonce may still be submitted by anyone: use the nonce up before failing.
  const cancel = sign(cancellationCall(tx.sender));
  const cancelGas = await estimate(context, tx, { from: relayer, to: tx.sender, data: cancel.data });
  if (!("limit" in cancelGas)) return { outcome: retryLater(context, tx, gas.failure) };
  return {
    relay: {
      to: tx.sender,
      data: cancel.data,
      gasLimit: cancelGas.limit,
      built: { ...built(tx, cancel.hash, nonce), error: gas.failure },
    },
  };
}

const SAFE_NOT_DEPLOYED: TxError = {
  code: "SAFE_NOT_DEPLOYED",
  message: "the Safe is not deployed (yet): its deployment has not been included",
};

/** The relayer's call of the proxy factory; included without sending if the Safe already has code. */
async function prepareDeployment(
  context: WorkerContext,
  tx: TxRecord,
  relayer: string,
  code: string,
  giveUp: boolean,
  options: { ahead: boolean },
): Promise<SafePreparation> {
  if (code !== "0x") return { outcome: { status: "included", success: true } };
  const call = tx.calls[0]!;
  // A deployment has no signature: failing it can never be contradicted by a later run of an earlier build.
  if (giveUp) return { outcome: failed(tx.error ?? { code: "NOT_INCLUDED", message: "not deployed" }) };
  const gas = await estimate(context, tx, { from: relayer, to: call.to, data: call.data });
  if ("limit" in gas) {
    return { relay: { to: call.to, data: call.data, gasLimit: gas.limit, built: { txId: tx.id, safeTx: undefined } } };
  }
  if (options.ahead) return { later: true };
  return { outcome: failed({ code: "SAFE_DEPLOYMENT_FAILED", message: gas.failure.message }) };
}

/** The Safe transaction a request asks for. */
const requestCall = (tx: TxRecord): SafeCall => {
  const call = tx.calls[0]!;
  return { to: call.to, value: call.value, data: call.data, operation: tx.delegatecall ? 1 : 0 };
};

/** A Safe transaction that does nothing, to use up a nonce: the Safe calling itself with no data. */
const cancellationCall = (safe: string): SafeCall => ({ to: safe, value: 0n, data: "0x", operation: 0 });

const built = (tx: TxRecord, hash: string, nonce: bigint): BuiltSafeTx => ({
  txId: tx.id,
  safeTx: { hash, nonce: Number(nonce) },
});

/** The Safe's nonce; an answer that is not a number means the Safe no longer works as one (its code replaced). */
async function safeNonce(context: WorkerContext, safe: string): Promise<bigint> {
  const answer = (await context.chain.provider.send("eth_call", [
    { to: safe, data: safeInterface.encodeFunctionData("nonce") },
    "latest",
  ])) as string;
  if (!/^0x[0-9a-fA-F]{64}$/.test(answer)) throw new SafeUnreadableError(`the Safe at ${safe} answers no nonce`);
  return BigInt(answer);
}

/** A Safe that does not answer as one (e.g. its singleton slot overwritten by one of its owners). */
export class SafeUnreadableError extends Error {
  override readonly name = "SafeUnreadableError";
}

/**
 * If the nonce of the request's last broadcast build is used: included when the request's own transaction at that
 * nonce ran, failed when our cancellation did (the request's recorded error), failed too when it was being
 * cancelled and another transaction used the nonce; undefined when the request must be built again (at a new
 * nonce: nothing signed for the old one can run).
 */
async function outcomeOfUsedNonce(context: WorkerContext, tx: TxRecord, nonce: bigint): Promise<TxOutcome | undefined> {
  const used = BigInt(tx.safeNonce!);
  if (nonce <= used) return undefined;
  const chainId = BigInt(context.chain.chainId);
  const own = safeTxHash(chainId, tx.sender, requestCall(tx), used);
  const ran = await findExecution(context, tx.sender, own);
  if (ran) return { status: "included", success: true, ...ran };
  const cancelling =
    tx.safeTxHash?.toLowerCase() === safeTxHash(chainId, tx.sender, cancellationCall(tx.sender), used).toLowerCase();
  if (cancelling) return failed(tx.error ?? { code: "CANCELLED", message: "the Safe transaction was cancelled" });
  return undefined;
}

/** eth_estimateGas with a margin, capped; a revert becomes its readable reason. */
async function estimate(
  context: WorkerContext,
  tx: TxRecord,
  call: { from: string; to: string; data: string },
): Promise<{ limit: bigint } | { failure: TxError }> {
  let gas: bigint;
  try {
    gas = BigInt(await context.chain.provider.send("eth_estimateGas", [call]));
  } catch (error) {
    const data = revertDataOf(error);
    if (data === undefined && !isRevert(error)) throw error; // the node, not the call: try again later
    return { failure: await failureOf(context, tx, describeRevert(data ?? "0x")) };
  }
  const margin = (gas * GAS_MARGIN_PERCENT) / 100n;
  const limit = gas + (margin > GAS_MARGIN_MIN ? margin : GAS_MARGIN_MIN);
  if (limit > MAX_RELAY_GAS) {
    return { failure: { code: "SAFE_TX_TOO_LARGE", message: `needs about ${gas} gas; at most ${MAX_RELAY_GAS}` } };
  }
  return { limit };
}

/** Whether a node error says the call reverted (some nodes give no revert data for an empty revert). */
const isRevert = (error: unknown): boolean =>
  /revert|insufficient funds|exceeds balance|gas required exceeds|out of gas/i.test(
    String((error as Error)?.message ?? error),
  );

/** The reason as a failure: INSUFFICIENT_BALANCE when a token says so, or the Safe lacks the native coin sent. */
async function failureOf(context: WorkerContext, tx: TxRecord, reason: string): Promise<TxError> {
  const short =
    INSUFFICIENT.test(reason) || (reason === "reverted without a reason" && (await shortOfCoin(context, tx)));
  return short
    ? { code: "INSUFFICIENT_BALANCE", message: `the Safe holds too little: ${reason}` }
    : { code: "EXECUTION_REVERTED", message: reason };
}

/** Whether the Safe's native balance is below the native coin the request sends (a transfer or a disperse). */
async function shortOfCoin(context: WorkerContext, tx: TxRecord): Promise<boolean> {
  const needed = nativeValue(tx);
  if (needed === 0n) return false;
  const balance = BigInt(await context.chain.provider.send("eth_getBalance", [tx.sender, "latest"]));
  return balance < needed;
}

/** The native coin a request sends: its call's value, or the sum over a MultiSend batch's entries. */
export function nativeValue(tx: TxRecord): bigint {
  const call = tx.calls[0]!;
  if (!tx.delegatecall) return call.value;
  if (!call.data.toLowerCase().startsWith(MULTI_SEND)) return 0n;
  // multiSend(bytes): selector, offset, length, then entries of operation(1) ‖ to(20) ‖ value(32) ‖ length(32) ‖ data.
  const hex = call.data.slice(2 + 8 + 128);
  let total = 0n;
  for (let at = 0; at + 170 <= hex.length;) {
    total += BigInt(`0x${hex.slice(at + 42, at + 106)}`);
    at += 170 + Number(BigInt(`0x${hex.slice(at + 106, at + 170)}`)) * 2;
  }
  return total;
}

const failed = (error: TxError): TxOutcome => ({ status: "failed", error });

/**
 * What a mined relayer transaction did for a Safe request: a deployment is included; a Safe transaction is
 * included by its ExecutionSuccess, and failed (with the recorded reason) if what ran was our cancellation. A
 * reverted relayer transaction goes back to the queue, where the Safe's nonce decides (see prepareSafeRelay).
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
  if (cancelled) return failed(tx.error ?? { code: "CANCELLED", message: "the Safe transaction was cancelled" });
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
export async function safeMissingOutcome(context: WorkerContext, tx: TxRecord): Promise<TxOutcome> {
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
      return failed({ code: "SAFE_UNREADABLE", message: error.message });
    }
    const settled = await outcomeOfUsedNonce(context, tx, nonce);
    if (settled) return settled;
  }
  return retryLater(context, tx, { code: "NOT_INCLUDED", message: "the relayer's transaction was not mined" });
}

/** The transaction and block of the Safe's ExecutionSuccess for `hash`, newest blocks first, within the look-back. */
async function findExecution(
  context: WorkerContext,
  safe: string,
  hash: string,
): Promise<{ transactionHash: string; blockNumber: number } | undefined> {
  const { provider } = context.chain;
  const latest = Number(await provider.send("eth_blockNumber", []));
  const oldest = Math.max(0, latest - LOOKBACK_BLOCKS);
  for (let to = latest; to >= oldest; to -= LOG_CHUNK_BLOCKS) {
    const from = Math.max(oldest, to - LOG_CHUNK_BLOCKS + 1);
    const logs = (await provider.send("eth_getLogs", [
      { address: safe, fromBlock: toBeHex(from), toBlock: toBeHex(to), topics: [EXECUTION_SUCCESS, hash] },
    ])) as { transactionHash: string; blockNumber: string }[];
    const log = logs.at(-1);
    if (log) return { transactionHash: log.transactionHash, blockNumber: Number(log.blockNumber) };
  }
  return undefined;
}
