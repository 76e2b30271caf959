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

/** Thrown at start-up when a configured RPC does not answer (its node down, a wrong URL): names the setting. */
export class ChainUnreachableError extends Error {
  override readonly name = "ChainUnreachableError";
}

/**
 * Refuses to start if any configured RPC does not answer, or answers another chain id than the registry's: a chain
 * is never listed served on an RPC the service could not reach (GET /v1/networks then follows the health checks).
 */
export async function verifyChainIds(clients: Map<string, ChainClient>): Promise<void> {
  for (const client of clients.values()) {
    let answered: number;
    try {
      answered = Number(await client.provider.send("eth_chainId", []));
    } catch (error) {
      // The chain's setting as config/load.ts names it (RPC_URL_<short name, upper case, - as _>).
      const setting = `RPC_URL_${client.name.toUpperCase().replace(/-/g, "_")}`;
      throw new ChainUnreachableError(
        `the RPC of ${client.name} (${setting}) did not answer eth_chainId: ${(error as Error).message}; start its node, or correct or unset ${setting}`,
      );
    }
    if (answered !== client.chainId) {
      throw new ChainMismatchError(
        `RPC of ${client.name} serves chain id ${answered}, the registry says ${client.chainId}`,
      );
    }
  }
}
