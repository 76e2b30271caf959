import { type JsonRpcProvider, type Log, toBeHex } from "ethers";
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

/** The UserOperationEvents (with revert reasons) of EntryPoint logs, by userOpHash. */
export function operationEvents(logs: readonly RawLog[], entryPoint: string): Map<string, OperationEvent> {
  const reasons = new Map<string, string>();
  const events = new Map<string, OperationEvent>();
  const fromEntryPoint = logs.filter((log) => log.address.toLowerCase() === entryPoint.toLowerCase());
  for (const log of fromEntryPoint) {
    if (log.topics[0] !== REVERT_EVENT) continue;
    const parsed = entryPointInterface.parseLog({ topics: [...log.topics], data: log.data })!;
    reasons.set(String(parsed.args.userOpHash).toLowerCase(), describeRevert(String(parsed.args.revertReason)));
  }
  for (const log of fromEntryPoint) {
    if (log.topics[0] !== OP_EVENT) continue;
    const parsed = entryPointInterface.parseLog({ topics: [...log.topics], data: log.data })!;
    const hash = String(parsed.args.userOpHash).toLowerCase();
    const success = Boolean(parsed.args.success);
    events.set(hash, {
      userOpHash: hash,
      sender: String(parsed.args.sender),
      nonce: BigInt(parsed.args.nonce),
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
