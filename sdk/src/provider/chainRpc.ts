import { ProviderRpcError, RPC_ERROR } from "./rpcError.js";

/** Read-only JSON-RPC methods the provider forwards to the chain's node as they are. */
export const FORWARDED_METHODS = new Set([
  "eth_blockNumber",
  "eth_call",
  // Forwarded as asked, `from` the wallet (ethers' signer estimates before every eth_sendTransaction): the node runs
  // the call as the UserOperation will run it, from the wallet's address with its balance, so a call that would
  // revert or overspend fails here before anything is sent. Nodes skip EIP-3607's sender-has-code check for
  // estimates and calls, so a deployed wallet is estimated like an undeployed one. The number itself only informs:
  // the provider drops `gas` from eth_sendTransaction, the service sizes the UserOperation and the operator pays.
  "eth_estimateGas",
  "eth_feeHistory",
  "eth_gasPrice",
  "eth_getBalance",
  "eth_getBlockByHash",
  "eth_getBlockByNumber",
  "eth_getBlockTransactionCountByHash",
  "eth_getBlockTransactionCountByNumber",
  "eth_getCode",
  "eth_getLogs",
  "eth_getProof",
  "eth_getStorageAt",
  "eth_getTransactionByHash",
  "eth_getTransactionCount",
  "eth_getTransactionReceipt",
  "eth_maxPriorityFeePerGas",
  "eth_syncing",
  "net_version",
  "web3_clientVersion",
]);

let nextId = 1;

/** Sends one JSON-RPC request to a node and answers its result, or throws its error as a ProviderRpcError. */
export async function callNode(
  fetcher: typeof fetch,
  rpcUrl: string,
  method: string,
  params: readonly unknown[],
): Promise<unknown> {
  const response = await fetcher(rpcUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const answer = (await response.json().catch(() => undefined)) as
    { result?: unknown; error?: { code: number; message: string; data?: unknown } } | undefined;
  if (!answer) throw new ProviderRpcError(RPC_ERROR.internal, `the chain's node answered HTTP ${response.status}`);
  if (answer.error) throw new ProviderRpcError(answer.error.code, answer.error.message, answer.error.data);
  return answer.result;
}
