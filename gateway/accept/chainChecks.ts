import type { ChainCapabilities, ChainCapabilitiesTable, SafeService } from "./chainCapabilities";
import type { ChainClient } from "../chains/clients";
import { chainMeant } from "../chains/chainNameHints";
import type { ChainInfo } from "../chains/registry";
import { ApiError } from "../errors/apiError";

/** What a request does on its chain: which chains of this deployment can do it, and how a detail lists them. */
interface ChainUse {
  readonly usable: (chain: ChainCapabilities) => boolean;
  /** Before the list of their short names: "Chains served here". */
  readonly listed: string;
}

const SERVED: ChainUse = { usable: (chain) => chain.served, listed: "Chains served here" };
const TRANSACTIONS: ChainUse = {
  usable: (chain) => chain.userOperations !== undefined,
  listed: "Chains taking transactions here",
};
const SAFES: ChainUse = { usable: (chain) => chain.safes !== undefined, listed: "Chains with Safe accounts here" };
const DUST: ChainUse = { usable: (chain) => chain.dust !== undefined, listed: "Chains configured here" };

/** The sentence naming the short names a request of `use` may carry on this deployment: what to send instead. */
function usableChains(capabilities: ChainCapabilitiesTable, use: ChainUse): string {
  const names = [...capabilities.values()].filter(use.usable).map((chain) => chain.chain.name);
  return names.length === 0 ? `${use.listed}: none` : `${use.listed}: ${names.join(", ")}`;
}

/**
 * The chain a request names, with what it can do here: 400 UNKNOWN_CHAIN if the registry has no such chain, its
 * detail naming the short name meant (for a chain id or a common name) and the chains usable here for `use`.
 */
function chainNamed(name: string, capabilities: ChainCapabilitiesTable, use: ChainUse): ChainCapabilities {
  const chain = capabilities.get(name);
  if (chain) return chain;
  const meant = chainMeant(
    name,
    [...capabilities.values()].map((known) => known.chain),
  );
  // Requests name chains by their ERC-3770 short names (spec §4.7); a chain id or a common name is only hinted at.
  const hint =
    meant === undefined
      ? `No chain is named ${name} (chains go by their ERC-3770 short names).`
      : meant.by === "chain id"
        ? `No chain is named ${name}: chain id ${meant.chain.chainId} is ${meant.chain.name}, its ERC-3770 short name.`
        : `No chain is named ${name}: did you mean ${meant.chain.name}, its ERC-3770 short name?`;
  throw new ApiError(400, "UNKNOWN_CHAIN", "Unknown chain", `${hint} ${usableChains(capabilities, use)}`);
}

/**
 * A chain of the registry, served here or not: a listing's filter (requests on a chain no longer served stay listed);
 * 400 UNKNOWN_CHAIN for a name the registry does not have, which no request can carry.
 */
export const knownChain = (name: string, capabilities: ChainCapabilitiesTable): ChainInfo =>
  chainNamed(name, capabilities, SERVED).chain;

/** 400 CHAIN_NOT_AVAILABLE: `reason`, then the chains usable here for `use`. */
const notAvailable = (reason: string, capabilities: ChainCapabilitiesTable, use: ChainUse) =>
  new ApiError(400, "CHAIN_NOT_AVAILABLE", "Chain not available", `${reason}. ${usableChains(capabilities, use)}`);

/** A chain a signature may name, and its client: 400 UNKNOWN_CHAIN, or CHAIN_NOT_AVAILABLE unless the API serves it. */
export function signingChain(
  name: string,
  capabilities: ChainCapabilitiesTable,
): { info: ChainInfo; client: ChainClient } {
  const chain = chainNamed(name, capabilities, SERVED);
  if (!chain.sign) throw notAvailable(`${name} is not served by this deployment`, capabilities, SERVED);
  return { info: chain.chain, client: chain.sign };
}

/** A chain that takes wallet transactions: 400 as for signatures, 503 TX_NOT_CONFIGURED without its worker. */
export function transactionChain(name: string, capabilities: ChainCapabilitiesTable): ChainInfo {
  const chain = chainNamed(name, capabilities, TRANSACTIONS);
  if (!chain.served) throw notAvailable(`${name} is not served by this deployment`, capabilities, TRANSACTIONS);
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
  const chain = chainNamed(name, capabilities, SAFES);
  if (!chain.chain.safe) throw notAvailable(`${name} has no Safe accounts`, capabilities, SAFES);
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
  const chain = chainNamed(name, capabilities, DUST);
  if (!chain.dust) throw notAvailable(`${name} is not configured on this deployment`, capabilities, DUST);
  return chain.dust;
}
