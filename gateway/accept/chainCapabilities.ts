import type { Config } from "../config/schema";
import type { KeyAddresses } from "../custody/serviceKeys";
import { type SafeContracts, safeContractsFor, safeUnavailableReason } from "../config/safeSettings";
import type { ChainClient } from "../chains/clients";
import { CHAINS, type ChainInfo } from "../chains/registry";

/** How a chain's UserOperations reach its EntryPoint: the relayer's own bundles, or a bundler's RPC (BUNDLER_URL). */
export type UserOperationsRoute = "built-in bundler" | "external bundler";

/** What a chain's Safe requests are built from. */
export interface SafeService {
  readonly contracts: SafeContracts;
  /** The operator's owner address, added to every Safe. */
  readonly operator: string;
}

/** What this deployment can do on one chain of the registry; every decision about a chain reads it. */
export interface ChainCapabilities {
  readonly chain: ChainInfo;
  /** An RPC URL is configured for it. */
  readonly configured: boolean;
  /** The API serves it: spec §4.7 marks it live, and the service has its RPC client. */
  readonly served: boolean;
  /**
   * /v1/resolver's addresses are wallets here: idwallet's contracts are deployed (the same addresses everywhere), by
   * the project (the registry says so) or by this deployment's operator (it serves the chain, which needs them).
   */
  readonly resolve: boolean;
  /** A signature may name it (served): the client the wallet's deployment is read through. */
  readonly sign: ChainClient | undefined;
  /** Served and a transaction worker takes its requests: how their UserOperations are sent. */
  readonly userOperations: UserOperationsRoute | undefined;
  /** Its four Safe contracts, when all are configured. */
  readonly safeContracts: SafeContracts | undefined;
  /**
   * Safe requests accepted: a Safe chain with its settings (RPC, operator and relayer keys, contracts) whose worker
   * sends through the built-in relayer, which sends Safe transactions in turn with its bundles.
   */
  readonly safes: SafeService | undefined;
  /** The dust interface can read it (it has an RPC client; the API need not serve it). */
  readonly dust: ChainClient | undefined;
}

/** Every chain of the registry by short name, with what it can do here. */
export type ChainCapabilitiesTable = ReadonlyMap<string, ChainCapabilities>;

/**
 * The capabilities of every chain of the registry, decided once at start-up from the settings, the RPC clients and
 * the chains whose transaction worker runs (the worker decides which chains it can send for).
 */
export function chainCapabilities(
  config: Config,
  clients: ReadonlyMap<string, ChainClient>,
  workerChains: ReadonlySet<string>,
  keys: KeyAddresses,
): ChainCapabilitiesTable {
  const operator = keys.safeOperator;
  const table = new Map<string, ChainCapabilities>();
  for (const chain of CHAINS) {
    const connection = config.chains[chain.name];
    const client = clients.get(chain.name);
    const served = chain.api === "live" && client !== undefined;
    const safeContracts = chain.safe ? safeContractsFor(config, chain.name) : undefined;
    const relayed = workerChains.has(chain.name) && !connection?.bundlerUrl;
    const safesServed = safeUnavailableReason(config, chain.name, keys) === undefined && relayed;
    table.set(
      chain.name,
      Object.freeze({
        chain,
        configured: connection !== undefined,
        served,
        resolve: chain.contracts === "deployed" || served,
        sign: served ? client : undefined,
        userOperations:
          served && workerChains.has(chain.name)
            ? connection?.bundlerUrl
              ? ("external bundler" as const)
              : ("built-in bundler" as const)
            : undefined,
        safeContracts,
        safes: safesServed && safeContracts && operator ? { contracts: safeContracts, operator } : undefined,
        dust: client,
      }),
    );
  }
  return table;
}
