import { type JsonRpcProvider, Network } from "ethers";
import { HttpJsonRpcProvider } from "./httpJsonRpcProvider";
import { chainByName } from "./registry";

/** A JSON-RPC connection to one configured chain. */
export interface ChainClient {
  readonly name: string;
  readonly chainId: number;
  readonly provider: JsonRpcProvider;
}

/** Thrown at start-up when a configured RPC does not serve the chain the registry names. */
export class ChainMismatchError extends Error {
  override readonly name = "ChainMismatchError";
}

/** The settings the clients are made from: each configured chain's RPC, and the timeout of every call. */
export interface ChainConnections {
  readonly chains: Readonly<Record<string, { readonly rpcUrl: string }>>;
  readonly rpcTimeoutMs: number;
}

/** One client per configured chain; every call has the configured timeout (invariant 5). */
export function createChainClients(config: ChainConnections): Map<string, ChainClient> {
  const clients = new Map<string, ChainClient>();
  for (const [name, connection] of Object.entries(config.chains)) {
    const chain = chainByName(name);
    if (!chain) throw new ChainMismatchError(`chains.${name}: not a chain of the registry`);
    // The network is fixed: verifyChainIds checks it once at start-up.
    const provider = new HttpJsonRpcProvider(connection.rpcUrl, Network.from(chain.chainId), config.rpcTimeoutMs);
    clients.set(name, { name, chainId: chain.chainId, provider });
  }
  return clients;
}

/** Refuses to start if any configured RPC answers another chain id than the registry's. */
export async function verifyChainIds(clients: Map<string, ChainClient>): Promise<void> {
  for (const client of clients.values()) {
    const answered = Number(await client.provider.send("eth_chainId", []));
    if (answered !== client.chainId) {
      throw new ChainMismatchError(
        `RPC of ${client.name} serves chain id ${answered}, the registry says ${client.chainId}`,
      );
    }
  }
}
