import { Router } from "express";
import type { ChainCapabilitiesTable } from "../accept/chainCapabilities";
import type { ChainReachability } from "../chains/chainReachability";
import type { Config } from "../config/schema";

/**
 * GET /v1/networks: the chains this deployment serves, then every chain of the registry with its status (the
 * registry's and this deployment's: configured, served, and whether its RPC answered the last check) and idwallet's
 * and Safe's contract addresses.
 */
export function networksRouter(deps: {
  config: Config;
  capabilities: ChainCapabilitiesTable;
  /** The configured chains' last known reachability: answered from memory, never an RPC call of this request's. */
  reachability: Pick<ChainReachability, "lastSeen">;
  /** The Safe operator's address, if the deployment has one; whether the ENS gateway signs answers. */
  custody: { readonly safeOperator: string | undefined; readonly ccipGateway: boolean };
}): Router {
  const { contracts, chains } = deps.config;
  // The addresses every chain shares; the wallet code wallets were moved to is the operator's setting, not one of them.
  const { walletImplementations: _moved, ...addresses } = contracts;
  // Each chain's status, then (per request) whether its RPC answered, then its addresses.
  const networks = [...deps.capabilities.values()].map(({ chain, configured, served, resolve, safeContracts }) => {
    const connection = chains[chain.name];
    const status = {
      name: chain.name,
      chainId: chain.chainId,
      type: chain.type,
      contracts: chain.contracts,
      api: chain.api,
      safe: chain.safe,
      configured,
      // The registry's `api` is the chain's status in the spec, not here: this says whether this deployment serves it.
      served,
    };
    const where = {
      // The development chain's RPC is public by nature; production RPC URLs may embed API keys.
      ...(chain.type === "local" && connection ? { rpcUrl: connection.rpcUrl } : {}),
      // Deterministic deployment: the same addresses on every chain where the contracts are deployed.
      contractAddresses: resolve ? addresses : null,
      safeContracts: safeContracts ?? null,
    };
    return { status, where };
  });
  const { ens } = deps.config;
  const served = networks.filter(({ status }) => status.served).map(({ status }) => status.name);
  // Where names under the domain resolve: the registry of the ENS chain, the resolver, this gateway.
  const rest = {
    ens: {
      domain: ens.domain,
      chain: ens.chain,
      registry: ens.registry ?? null,
      resolver: ens.resolver ?? contracts.ensResolver ?? null,
      gateway: deps.custody.ccipGateway,
    },
    // The operator's owner key sits on every Safe account; its address lets anyone check a Safe's owners.
    safeOperator: deps.custody.safeOperator ?? null,
  };
  return Router().get("/v1/networks", (_req, res) => {
    const seen = deps.reachability.lastSeen();
    // Issue 35, "configured, reachable": what the last check found of each configured chain's RPC (null: not checked).
    const listed = networks.map(({ status, where }) => {
      const last = status.configured ? seen.get(status.name) : undefined;
      return {
        ...status,
        reachable: last?.reachable ?? null,
        rpcCheckedAt: last?.checkedAt.toISOString() ?? null,
        ...where,
      };
    });
    res.json({ served, networks: listed, ...rest });
  });
}
