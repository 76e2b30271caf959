import { type JsonRpcProvider, type Log, getAddress, toBeHex } from "ethers";
import type { TxOutcome, TxRecord } from "../storage/transactionsRepository";
import { entryPointInterface, nonceKey, requestNonce, word } from "../userop/entryPoint";
import { describeRevert } from "./revertReason";

/** What the EntryPoint logged about one executed UserOperation. */
export interface OperationEvent {
  readonly userOpHash: string;
  readonly sender: string;
  readonly nonce: bigint;
  readonly success: boolean;
  readonly transactionHash: string;
  readonly blockNumber: number;
  readonly revertReason: string | undefined;
}

const OP_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;
const REVERT_EVENT = entryPointInterface.getEvent("UserOperationRevertReason")!.topicHash;
/** How far back a nonce-key lookup searches for the operation that used it. */
const LOOKBACK_BLOCKS = 50_000;

type RawLog = Pick<Log, "address" | "topics" | "data" | "transactionHash" | "blockNumber">;

/** Word `n` (0-based) of 0x-hex log data, as a bigint. */
const dataWord = (data: string, n: number): bigint => BigInt(`0x${data.slice(2 + n * 64, 66 + n * 64) || "0"}`);

/** An address from an indexed topic. */
const topicAddress = (topic: string): string => getAddress(`0x${topic.slice(26)}`);

/** `bytes` at the ABI offset held in word `n` of the data. */
function dataBytes(data: string, n: number): string {
  const start = Number(dataWord(data, n)) * 2 + 2;
  const length = Number(BigInt(`0x${data.slice(start, start + 64)}`));
  return `0x${data.slice(start + 64, start + 64 + length * 2)}`;
}

/**
 * The UserOperationEvents (with revert reasons) of EntryPoint logs, by userOpHash. Read straight from the
 * topics and data words (userOpHash, sender, paymaster indexed; nonce, success, actualGasCost, actualGasUsed):
 * a bundle's receipt has a few events per operation, which ethers' generic log parser decodes slowly.
 */
export function operationEvents(logs: readonly RawLog[], entryPoint: string): Map<string, OperationEvent> {
  const reasons = new Map<string, string>();
  const events = new Map<string, OperationEvent>();
  const fromEntryPoint = logs.filter((log) => log.address.toLowerCase() === entryPoint.toLowerCase());
  for (const log of fromEntryPoint) {
    if (log.topics[0] !== REVERT_EVENT || log.topics.length < 3) continue;
    // UserOperationRevertReason: data = nonce, offset of revertReason, then the bytes.
    reasons.set(log.topics[1]!.toLowerCase(), describeRevert(dataBytes(log.data, 1)));
  }
  for (const log of fromEntryPoint) {
    if (log.topics[0] !== OP_EVENT || log.topics.length < 4) continue;
    const hash = log.topics[1]!.toLowerCase();
    const success = dataWord(log.data, 1) === 1n;
    events.set(hash, {
      userOpHash: hash,
      sender: topicAddress(log.topics[2]!),
      nonce: dataWord(log.data, 0),
      success,
      transactionHash: log.transactionHash,
      blockNumber: Number(log.blockNumber),
      revertReason: success ? undefined : (reasons.get(hash) ?? "reverted without a reason"),
    });
  }
  return events;
}

/** The request's outcome from its operation's event: included, its calls succeeded or reverted. */
export function includedOutcome(event: OperationEvent): TxOutcome {
  return {
    status: "included",
    transactionHash: event.transactionHash,
    blockNumber: event.blockNumber,
    success: event.success,
    ...(event.success ? {} : { error: { code: "EXECUTION_REVERTED", message: event.revertReason ?? "" } }),
  };
}

/**
 * Whether some UserOperation of this request already executed: its nonce key is used on chain (the EntryPoint's
 * nonce), and if so the event that used it. Any build of the request counts, whichever hash it had.
 */
export async function findExecutedOperation(
  provider: JsonRpcProvider,
  entryPoint: string,
  tx: TxRecord,
): Promise<OperationEvent | undefined> {
  const nonce = requestNonce(tx.id);
  const data = entryPointInterface.encodeFunctionData("getNonce", [tx.sender, nonceKey(nonce)]);
  const current = BigInt(await provider.send("eth_call", [{ to: entryPoint, data }, "latest"]));
  if (current <= nonce) return undefined;
  const latest = Number(await provider.send("eth_blockNumber", []));
  const logs: RawLog[] = (
    await provider.send("eth_getLogs", [
      {
        address: entryPoint,
        fromBlock: toBeHex(Math.max(0, latest - LOOKBACK_BLOCKS)),
        toBlock: "latest",
        topics: [[OP_EVENT, REVERT_EVENT], null, word(tx.sender)],
      },
    ])
  ).map((log: { address: string; topics: string[]; data: string; transactionHash: string; blockNumber: string }) => ({
    ...log,
    blockNumber: Number(log.blockNumber),
  }));
  for (const event of operationEvents(logs, entryPoint).values()) {
    if (event.nonce === nonce) return event;
  }
  return undefined;
}
