import type { ChainCapabilities, ChainCapabilitiesTable, SafeService } from "./chainCapabilities";
import type { ChainClient } from "../chains/clients";
import type { ChainInfo } from "../chains/registry";
import { ApiError } from "../errors/apiError";

/** The chain a request names, with what it can do here: 400 UNKNOWN_CHAIN if the registry has no such chain. */
function chainNamed(name: string, capabilities: ChainCapabilitiesTable): ChainCapabilities {
  const chain = capabilities.get(name);
  if (!chain) throw new ApiError(400, "UNKNOWN_CHAIN", "Unknown chain", `No chain is named ${name}`);
  return chain;
}

/**
 * A chain of the registry, served here or not: a listing's filter (requests on a chain no longer served stay listed);
 * 400 UNKNOWN_CHAIN for a name the registry does not have, which no request can carry.
 */
export const knownChain = (name: string, capabilities: ChainCapabilitiesTable): ChainInfo =>
  chainNamed(name, capabilities).chain;

const notAvailable = (detail: string) => new ApiError(400, "CHAIN_NOT_AVAILABLE", "Chain not available", detail);
const notServed = (name: string) => notAvailable(`${name} is not served by this deployment`);

/** A chain a signature may name, and its client: 400 UNKNOWN_CHAIN, or CHAIN_NOT_AVAILABLE unless the API serves it. */
export function signingChain(
  name: string,
  capabilities: ChainCapabilitiesTable,
): { info: ChainInfo; client: ChainClient } {
  const chain = chainNamed(name, capabilities);
  if (!chain.sign) throw notServed(name);
  return { info: chain.chain, client: chain.sign };
}

/** A chain that takes wallet transactions: 400 as for signatures, 503 TX_NOT_CONFIGURED without its worker. */
export function transactionChain(name: string, capabilities: ChainCapabilitiesTable): ChainInfo {
  const chain = chainNamed(name, capabilities);
  if (!chain.served) throw notServed(name);
  if (!chain.userOperations) {
    throw new ApiError(
      503,
      "TX_NOT_CONFIGURED",
      "Transactions unavailable",
      `${name} takes no transactions on this deployment`,
    );
  }
  return chain.chain;
}

/** A chain that takes Safe requests, with what they are built from: 400 for non-Safe chains, 503 SAFE_NOT_CONFIGURED. */
export function safeChain(name: string, capabilities: ChainCapabilitiesTable): SafeService {
  const chain = chainNamed(name, capabilities);
  if (!chain.chain.safe) throw notAvailable(`${name} has no Safe accounts`);
  if (!chain.safes) {
    throw new ApiError(
      503,
      "SAFE_NOT_CONFIGURED",
      "Safe accounts unavailable",
      `${name}: Safe accounts are not configured on this deployment`,
    );
  }
  return chain.safes;
}

/** The client of a chain the dust interface reads: 400 UNKNOWN_CHAIN, or CHAIN_NOT_AVAILABLE without an RPC. */
export function dustChain(name: string, capabilities: ChainCapabilitiesTable): ChainClient {
  const chain = chainNamed(name, capabilities);
  if (!chain.dust) throw notAvailable(`${name} is not configured on this deployment`);
  return chain.dust;
}
