import { revertDataOf } from "../../chains/revertData";
import type { TxError, SafeTxRecord } from "../../transactions/txRecord";
import { describeRevert } from "../../relaying/revertReason";
import type { WorkerContext } from "../../relaying/workerContext";

/** Margin over eth_estimateGas for a relayed Safe transaction (the 1/64 rule, state moving between blocks). */
const GAS_MARGIN_PERCENT = 20n;
const GAS_MARGIN_MIN = 20_000n;
/** Largest relayer transaction for a Safe request: under EIP-7825's 2^24 and common block limits. */
const MAX_RELAY_GAS = 15_000_000n;
/** ERC-6093 errors that mean the Safe holds too little of what it was asked to pay out. */
const INSUFFICIENT = /^(ERC20InsufficientBalance|ERC1155InsufficientBalance)\(/;
/** MultiSendCallOnly.multiSend(bytes) selector: a disperse's native total is read from its packed entries. */
const MULTI_SEND = "0x8d80ff0a";

/** eth_estimateGas of a relayer call for a Safe request, with a margin, capped; a revert becomes its readable reason. */
export async function estimateRelayGas(
  context: WorkerContext,
  tx: SafeTxRecord,
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
async function failureOf(context: WorkerContext, tx: SafeTxRecord, reason: string): Promise<TxError> {
  const short =
    INSUFFICIENT.test(reason) || (reason === "reverted without a reason" && (await shortOfCoin(context, tx)));
  return short
    ? { code: "INSUFFICIENT_BALANCE", message: `the Safe holds too little: ${reason}` }
    : { code: "EXECUTION_REVERTED", message: reason };
}

/** Whether the Safe's native balance is below the native coin the request sends (a transfer or a disperse). */
async function shortOfCoin(context: WorkerContext, tx: SafeTxRecord): Promise<boolean> {
  const needed = nativeValue(tx);
  if (needed === 0n) return false;
  const balance = BigInt(await context.chain.provider.send("eth_getBalance", [tx.sender, "latest"]));
  return balance < needed;
}

/** The native coin a request sends: its call's value, or the sum over a MultiSend batch's entries. */
export function nativeValue(tx: SafeTxRecord): bigint {
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
