import { Router } from "express";
import type { ChainCapabilitiesTable } from "../accept/chainCapabilities";
import type { Config } from "../config/schema";

/**
 * GET /v1/networks: the chains this deployment serves, then every chain of the registry with its status (the
 * registry's and this deployment's) and idwallet's and Safe's contract addresses.
 */
export function networksRouter(deps: {
  config: Config;
  capabilities: ChainCapabilitiesTable;
  /** The Safe operator's address, if the deployment has one; whether the ENS gateway signs answers. */
  custody: { readonly safeOperator: string | undefined; readonly ccipGateway: boolean };
}): Router {
  const { contracts, chains } = deps.config;
  // The addresses every chain shares; the wallet code wallets were moved to is the operator's setting, not one of them.
  const { walletImplementations: _moved, ...addresses } = contracts;
  const networks = [...deps.capabilities.values()].map(({ chain, configured, served, resolve, safeContracts }) => {
    const connection = chains[chain.name];
    return {
      name: chain.name,
      chainId: chain.chainId,
      type: chain.type,
      contracts: chain.contracts,
      api: chain.api,
      safe: chain.safe,
      configured,
      // The registry's `api` is the chain's status in the spec, not here: this says whether this deployment serves it.
      served,
      // The development chain's RPC is public by nature; production RPC URLs may embed API keys.
      ...(chain.type === "local" && connection ? { rpcUrl: connection.rpcUrl } : {}),
      // Deterministic deployment: the same addresses on every chain where the contracts are deployed.
      contractAddresses: resolve ? addresses : null,
      safeContracts: safeContracts ?? null,
    };
  });
  const { ens } = deps.config;
  // Where names under the domain resolve: the registry of the ENS chain, the resolver, this gateway.
  const body = {
    served: networks.filter((network) => network.served).map((network) => network.name),
    networks,
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
    res.json(body);
  });
}
