import { chainByName } from "../chains/registry";
import { envNameOf } from "./load";
import type { Config } from "./schema";

/** Addresses of the Safe 1.5.0 contracts the service builds Safe accounts from, on one chain. */
export interface SafeContracts {
  /** The Safe singleton (not SafeL2) every Safe proxy delegates to. */
  readonly singleton: string;
  readonly proxyFactory: string;
  /** CompatibilityFallbackHandler: answers EIP-1271 and token callbacks for the Safe. */
  readonly fallbackHandler: string;
  /** MultiSendCallOnly: batches calls and refuses a delegatecall inside the batch. */
  readonly multiSendCallOnly: string;
}

const FIELDS: readonly (keyof SafeContracts)[] = ["singleton", "proxyFactory", "fallbackHandler", "multiSendCallOnly"];

/** Each Safe address a chain would use: its own setting, else the global one, field by field. */
const mergedContracts = (config: Config, chain: string): Partial<SafeContracts> => ({
  ...config.safe.contracts,
  ...config.safe.chains[chain],
});

/** A chain's Safe contracts (its own settings win over the global ones), or undefined unless all four are set. */
export function safeContractsFor(config: Config, chain: string): SafeContracts | undefined {
  const merged = mergedContracts(config, chain);
  const { singleton, proxyFactory, fallbackHandler, multiSendCallOnly } = merged;
  if (!singleton || !proxyFactory || !fallbackHandler || !multiSendCallOnly) return undefined;
  return { singleton, proxyFactory, fallbackHandler, multiSendCallOnly };
}

/** Why Safe accounts cannot be served on a chain (naming the setting to add), or undefined if they can. */
export function safeUnavailableReason(
  config: Config,
  chain: string,
  keys: { readonly safeOperator?: string; readonly relayer?: string },
): string | undefined {
  if (!chainByName(chain)?.safe) return `${chain} is not a Safe chain`;
  if (!config.chains[chain]) return `${chain} has no ${envNameOf(["chains", chain, "rpcUrl"])}`;
  if (!keys.safeOperator) return "SAFE_OPERATOR_SIGNER (or SAFE_OPERATOR_SIGNER_KEY) is not set";
  if (!keys.relayer) return "RELAYER_SIGNER (or RELAYER_SIGNER_KEY) is not set";
  const merged = mergedContracts(config, chain);
  const missing = FIELDS.filter((field) => !merged[field]);
  if (missing.length === 0) return undefined;
  const names = missing.map(
    (field) => `${envNameOf(["safe", "contracts", field])} or ${envNameOf(["safe", "chains", chain, field])}`,
  );
  return `${chain} has no Safe contract address: set ${names.join(", ")}`;
}
