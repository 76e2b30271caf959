import { toBeHex } from "ethers";
import { safeInterface } from "../encoding/safeArtifacts";
import { safeTxHash } from "../encoding/safeTransaction";
import type { TxOutcome } from "../../transactions/txOutcome";
import type { SafeTxRecord } from "../../transactions/txRecord";
import type { WorkerContext } from "../../relaying/workerContext";
import { EXECUTION_SUCCESS, cancellationCall, requestCall } from "./relayedSafeTx";

/** How far back, and in what steps (nodes cap log ranges), a Safe's ExecutionSuccess is searched for. */
const LOOKBACK_BLOCKS = 50_000;
const LOG_CHUNK_BLOCKS = 5_000;

/** A Safe that does not answer as one (e.g. its singleton slot overwritten by one of its owners). */
export class SafeUnreadableError extends Error {
  override readonly name = "SafeUnreadableError";
}

/** The Safe's nonce; an answer that is not a number means the Safe no longer works as one (its code replaced). */
export async function safeNonce(context: WorkerContext, safe: string): Promise<bigint> {
  const answer = (await context.chain.provider.send("eth_call", [
    { to: safe, data: safeInterface.encodeFunctionData("nonce") },
    "latest",
  ])) as string;
  if (!/^0x[0-9a-fA-F]{64}$/.test(answer)) throw new SafeUnreadableError(`the Safe at ${safe} answers no nonce`);
  return BigInt(answer);
}

/**
 * If the nonce of the request's last broadcast build is used: included when the request's own transaction at that
 * nonce ran, failed when our cancellation did (the request's recorded error), failed too when it was being
 * cancelled and another transaction used the nonce; undefined when the request must be built again (at a new
 * nonce: nothing signed for the old one can run).
 */
export async function outcomeOfUsedNonce(
  context: WorkerContext,
  tx: SafeTxRecord,
  nonce: bigint,
): Promise<TxOutcome | undefined> {
  const used = BigInt(tx.safeNonce!);
  if (nonce <= used) return undefined;
  const chainId = BigInt(context.chain.chainId);
  const own = safeTxHash(chainId, tx.sender, requestCall(tx), used);
  const ran = await findExecution(context, tx.sender, own);
  if (ran) return { status: "included", success: true, ...ran };
  const cancelling =
    tx.safeTxHash?.toLowerCase() === safeTxHash(chainId, tx.sender, cancellationCall(tx.sender), used).toLowerCase();
  if (cancelling) {
    return {
      status: "failed",
      error: tx.error ?? { code: "CANCELLED", message: "the Safe transaction was cancelled" },
    };
  }
  return undefined;
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
