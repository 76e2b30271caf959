import { safeInterface } from "../encoding/safeArtifacts";
import type { SafeCall } from "../encoding/safeTransaction";
import type { BuiltSafeTx } from "../../transactions/builtOp";
import type { SafeTxRecord } from "../../transactions/txRecord";

/** The Safe's events that say a Safe transaction ran: its calls succeeded, or reverted. */
export const EXECUTION_SUCCESS = safeInterface.getEvent("ExecutionSuccess")!.topicHash;
export const EXECUTION_FAILURE = safeInterface.getEvent("ExecutionFailure")!.topicHash;

/** The Safe transaction a request asks for. */
export const requestCall = (tx: SafeTxRecord): SafeCall => {
  const call = tx.calls[0]!;
  return { to: call.to, value: call.value, data: call.data, operation: tx.delegatecall ? 1 : 0 };
};

/** A Safe transaction that does nothing, to use up a nonce: the Safe calling itself with no data. */
export const cancellationCall = (safe: string): SafeCall => ({ to: safe, value: 0n, data: "0x", operation: 0 });

/** What a relay records for a request: the Safe transaction it signed, by hash and Safe nonce. */
export const builtSafeTx = (tx: SafeTxRecord, hash: string, nonce: bigint): BuiltSafeTx => ({
  txId: tx.id,
  safeTx: { hash, nonce: Number(nonce) },
});
