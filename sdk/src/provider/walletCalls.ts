import { type Hex, numberToHex } from "viem";
import type { IdwalletClient } from "../client/createClient.js";
import type { TxStatus } from "../client/transactions.js";
import { callNode } from "./chainRpc.js";
import { ProviderRpcError, RPC_ERROR } from "./rpcError.js";

/** One call of EIP-5792 `wallet_sendCalls` (and of `eth_sendTransaction`). */
export interface RpcCall {
  readonly to?: Hex;
  readonly data?: Hex;
  readonly value?: Hex;
}

/** EIP-5792 `wallet_getCallsStatus` status codes. */
const CALLS_STATUS = { pending: 100, confirmed: 200, offchainFailure: 400, reverted: 500 } as const;

/** The one call of a request, checked: a target is required (the service deploys no contracts). */
export function callOf(call: RpcCall): { to: Hex; value: bigint; data: Hex } {
  if (typeof call?.to !== "string") throw new ProviderRpcError(RPC_ERROR.invalidParams, "each call needs `to`");
  return { to: call.to, value: call.value === undefined ? 0n : BigInt(call.value), data: call.data ?? "0x" };
}

/** EIP-5792 status of a request: the batch is one UserOperation, so it is atomic and has at most one receipt. */
export async function callsStatus(
  request: TxStatus,
  chainId: number,
  readReceipt: (hash: Hex) => Promise<Record<string, unknown> | null>,
) {
  const status =
    request.status === "failed"
      ? CALLS_STATUS.offchainFailure
      : request.status !== "included"
        ? CALLS_STATUS.pending
        : request.success
          ? CALLS_STATUS.confirmed
          : CALLS_STATUS.reverted;
  const receipt =
    request.status === "included" && request.transactionHash ? await readReceipt(request.transactionHash as Hex) : null;
  return {
    version: "2.0.0",
    id: request.id,
    chainId: numberToHex(chainId),
    status,
    atomic: true,
    receipts: receipt
      ? [
          {
            // The bundle's receipt, its status the UserOperation's own (a bundle succeeds while an operation reverts).
            logs: receipt.logs,
            status: request.success ? "0x1" : "0x0",
            blockHash: receipt.blockHash,
            blockNumber: receipt.blockNumber,
            gasUsed: receipt.gasUsed,
            transactionHash: receipt.transactionHash,
          },
        ]
      : [],
  };
}

/** Reads a bundle's receipt from the chain's node, when the provider has one. */
export function receiptReader(fetcher: typeof fetch, rpcUrl: string | undefined) {
  return async (hash: Hex) =>
    rpcUrl ? ((await callNode(fetcher, rpcUrl, "eth_getTransactionReceipt", [hash])) as Record<string, unknown>) : null;
}

/** EIP-5792 capabilities of every idwallet: atomic batches (one UserOperation) and gas the operator sponsors. */
export function capabilities(chainId: number) {
  return {
    [numberToHex(chainId)]: {
      atomic: { status: "supported" },
      atomicBatch: { supported: true },
      sponsoredGas: { supported: true },
    },
  };
}

/** Sends a batch of calls for the provider's user and answers the request's record. */
export type SendCalls = (calls: ReturnType<typeof callOf>[]) => ReturnType<IdwalletClient["sendCalls"]>;
