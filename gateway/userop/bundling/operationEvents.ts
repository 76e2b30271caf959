import { type JsonRpcProvider, type Log, getAddress, toBeHex } from "ethers";
import type { TxOutcome } from "../../transactions/txOutcome";
import type { WalletTxRecord } from "../../transactions/txRecord";
import { entryPointInterface, nonceKey, requestNonce, word } from "../entryPoint";
import { describeRevert } from "../../relaying/revertReason";

/** What the EntryPoint logged about one executed UserOperation. */
export interface OperationEvent {
  readonly userOpHash: string;
  readonly sender: string;
  readonly nonce: bigint;
  readonly success: boolean;
  readonly transactionHash: string;
  readonly blockNumber: number;
  readonly revertReason: string | undefined;
  /** Gas the EntryPoint charged the paymaster for it (actualGasUsed): what it cost the operator. */
  readonly actualGasUsed: bigint;
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
      actualGasUsed: dataWord(log.data, 3),
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
    gasUsed: event.actualGasUsed,
    ...(event.success ? {} : { error: { code: "EXECUTION_REVERTED", message: event.revertReason ?? "" } }),
  };
}

/** A used nonce key whose event was not found (outside the look-back, or the node refused the log query). */
export const UNTRACED = "untraced";

/**
 * What to record for a request some build of which executed: included from its event, or (event not found)
 * included all the same, with neither transaction nor success known: the operation did run, and saying
 * otherwise would invite a retry.
 */
export function executedOutcome(found: OperationEvent | typeof UNTRACED): TxOutcome {
  if (found !== UNTRACED) return includedOutcome(found);
  return {
    status: "included",
    error: {
      code: "EXECUTED_UNTRACED",
      message: "the operation executed (its nonce is used) but its transaction was not found in the look-back",
    },
  };
}

/**
 * Whether some UserOperation of this request already executed: its nonce key is used on chain (the EntryPoint's
 * nonce), and if so the event that used it. Any build of the request counts, whichever hash it had.
 */
export async function findExecutedOperation(
  provider: JsonRpcProvider,
  entryPoint: string,
  tx: WalletTxRecord,
): Promise<OperationEvent | typeof UNTRACED | undefined> {
  const nonce = requestNonce(tx.id);
  const data = entryPointInterface.encodeFunctionData("getNonce", [tx.sender, nonceKey(nonce)]);
  const current = BigInt(await provider.send("eth_call", [{ to: entryPoint, data }, "latest"]));
  if (current <= nonce) return undefined;
  let logs: RawLog[];
  try {
    logs = await senderLogs(provider, entryPoint, tx.sender);
  } catch {
    return UNTRACED; // many nodes refuse wide log ranges; the nonce alone proves it ran
  }
  for (const event of operationEvents(logs, entryPoint).values()) {
    if (event.nonce === nonce) return event;
  }
  return UNTRACED;
}

/** The EntryPoint's operation events of `sender` within the look-back. */
async function senderLogs(provider: JsonRpcProvider, entryPoint: string, sender: string): Promise<RawLog[]> {
  const latest = Number(await provider.send("eth_blockNumber", []));
  return (
    await provider.send("eth_getLogs", [
      {
        address: entryPoint,
        fromBlock: toBeHex(Math.max(0, latest - LOOKBACK_BLOCKS)),
        toBlock: "latest",
        topics: [[OP_EVENT, REVERT_EVENT], null, word(sender)],
      },
    ])
  ).map((log: { address: string; topics: string[]; data: string; transactionHash: string; blockNumber: string }) => ({
    ...log,
    blockNumber: Number(log.blockNumber),
  }));
}
