import { type Hex, numberToHex, toEventSelector } from "viem";
import type { TxStatus } from "../client/transactions.js";
import { callNode } from "./chainRpc.js";
import { ProviderRpcError, RPC_ERROR } from "./rpcError.js";

/** One call of EIP-5792 `wallet_sendCalls` (and of `eth_sendTransaction`). */
export interface RpcCall {
  readonly to?: Hex;
  readonly data?: Hex;
  readonly value?: Hex;
  readonly capabilities?: object;
}

/** EIP-5792 `wallet_getCallsStatus` status codes. */
const CALLS_STATUS = { pending: 100, confirmed: 200, offchainFailure: 400, reverted: 500 } as const;

/** The one call of a request, checked: a target is required (the service deploys no contracts). */
export function callOf(call: RpcCall): { to: Hex; value: bigint; data: Hex } {
  if (typeof call?.to !== "string") throw new ProviderRpcError(RPC_ERROR.invalidParams, "each call needs `to`");
  return { to: call.to, value: weiOf(call.value), data: call.data ?? "0x" };
}

/** A call's wei from its JSON-RPC quantity (absent: none); anything else is a bad parameter, not an internal error. */
function weiOf(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  try {
    return BigInt(value as string);
  } catch {
    throw new ProviderRpcError(RPC_ERROR.invalidParams, `value ${String(value)} is not a quantity`);
  }
}

/**
 * EIP-5792: a request naming a capability the wallet does not support is refused (5700) unless the app marked it
 * `optional: true`, at the top level or on a call. An idwallet takes no capability in a request: a batch is always
 * atomic (which also meets `atomicRequired`) and its gas always the operator's, so an app's own paymaster service,
 * say, cannot be honoured and must not be silently ignored.
 */
export function refuseRequiredCapabilities(request: {
  capabilities?: unknown;
  calls: readonly { capabilities?: unknown }[];
}) {
  for (const requested of [request.capabilities, ...request.calls.map((call) => call.capabilities)]) {
    if (typeof requested !== "object" || requested === null) continue;
    for (const [name, value] of Object.entries(requested)) {
      if ((value as { optional?: unknown } | null)?.optional !== true) {
        throw new ProviderRpcError(RPC_ERROR.unsupportedCapability, `capability ${name} is not supported`);
      }
    }
  }
}

/** EIP-5792 status of a request: the batch is one UserOperation, so it is atomic and has at most one receipt. */
export async function callsStatus(
  request: TxStatus,
  chainId: number,
  readReceipt: (hash: Hex) => Promise<BundleReceipt | null>,
  entryPoint?: Hex,
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
            logs: operationLogs(receipt, request.userOpHash as Hex | null, entryPoint),
            // The UserOperation's own status: a bundle succeeds while an operation in it reverts.
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

/** The fields of an eth_getTransactionReceipt answer the status reads. */
export interface BundleReceipt {
  readonly to: Hex | null;
  readonly logs: readonly { address: Hex; topics: readonly Hex[] }[];
  readonly blockHash: Hex;
  readonly blockNumber: Hex;
  readonly gasUsed: Hex;
  readonly transactionHash: Hex;
}

const USER_OPERATION_EVENT = toEventSelector(
  "UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
);
const BEFORE_EXECUTION = toEventSelector("BeforeExecution()");

/**
 * The logs of one UserOperation in its bundle's receipt. EIP-5792 wants only the logs of the calls sent, not those of
 * the other operations (other users', other apps') the bundle carried: an operation's logs are those the EntryPoint's
 * execution phase emitted after BeforeExecution or the previous operation's UserOperationEvent, up to its own (the
 * split ERC-4337 bundlers make for eth_getUserOperationReceipt). Only the EntryPoint's own events mark the split, so
 * a contract emitting a look-alike event cannot move it (`entryPoint`: the service's published one, else the bundle
 * transaction's target). No logs when the operation's event is not found.
 */
export function operationLogs(receipt: BundleReceipt, userOpHash: Hex | null, entryPoint = receipt.to) {
  const marks = (log: BundleReceipt["logs"][number], topic: Hex) =>
    log.address.toLowerCase() === entryPoint?.toLowerCase() && log.topics[0] === topic;
  let start = -1;
  for (const [index, log] of receipt.logs.entries()) {
    if (marks(log, BEFORE_EXECUTION)) start = index;
    else if (marks(log, USER_OPERATION_EVENT)) {
      if (userOpHash !== null && log.topics[1]?.toLowerCase() === userOpHash.toLowerCase()) {
        return receipt.logs.slice(start + 1, index);
      }
      start = index;
    }
  }
  return [];
}

/** Reads a bundle's receipt from the chain's node, when the provider has one. */
export function receiptReader(fetcher: typeof fetch, rpcUrl: string | undefined) {
  return async (hash: Hex) =>
    rpcUrl ? ((await callNode(fetcher, rpcUrl, "eth_getTransactionReceipt", [hash])) as BundleReceipt | null) : null;
}

/**
 * What `wallet_getCapabilities` answers for the wallet's chain, by the names wallet libraries read:
 * - `atomic` (EIP-5792): every batch is one UserOperation, all calls or none, in order.
 * - `atomicBatch`: the same in the name of EIP-5792's earlier drafts, still read by wallet libraries of that time
 *   (documented in docs/client.md since the provider's first version).
 * - `paymasterService` (ERC-7677) not supported: an app's paymaster URL is never called (a `wallet_sendCalls` that
 *   requires one is refused, 5700), since the operator's paymaster already pays every batch's gas.
 * - `sponsoredGas`: that the gas is paid, whoever asks; no standard capability says so (ERC-7677's is the app's own
 *   paymaster), hence this name of the service's own.
 */
export function capabilities(chainId: number) {
  return {
    [numberToHex(chainId)]: {
      atomic: { status: "supported" },
      atomicBatch: { supported: true },
      paymasterService: { supported: false },
      sponsoredGas: { supported: true },
    },
  } as const;
}
