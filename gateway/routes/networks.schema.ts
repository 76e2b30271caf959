import { z } from "zod";

/** Safe 1.5.0 contracts the service builds a chain's Safe accounts from. */
const SafeContracts = z
  .object({
    singleton: z.string().meta({ description: "Safe singleton (not SafeL2) every Safe proxy delegates to" }),
    proxyFactory: z.string().meta({ description: "SafeProxyFactory that creates the Safe accounts" }),
    fallbackHandler: z.string().meta({ description: "CompatibilityFallbackHandler set on every Safe account" }),
    multiSendCallOnly: z.string().meta({ description: "MultiSendCallOnly the Safe accounts batch calls through" }),
  })
  .meta({ id: "SafeContracts" });

/** GET /v1/networks answer. */
export const NetworksResponse = z
  .object({
    served: z.array(z.string()).meta({
      description:
        "Short names of the chains this deployment serves (configured, and the registry's API status live); each network's reachable says whether its RPC answered the last check",
      example: ["localhost"],
    }),
    networks: z.array(
      z.object({
        name: z.string().meta({ description: "ERC-3770 short name", example: "matic" }),
        chainId: z.number().int(),
        type: z.enum(["production", "testnet", "local"]),
        contracts: z.enum(["deployed", "in-construction"]).meta({
          description: "The registry's status of idwallet's contracts on the chain (spec §4.7), not this deployment's",
        }),
        api: z.enum(["live", "planned", "none"]).meta({
          description: "The registry's API status of the chain (spec §4.7), not this deployment's: see served",
        }),
        safe: z.boolean().meta({ description: "Safe-account interface served on this chain" }),
        configured: z.boolean().meta({ description: "This deployment has an RPC connection to the chain" }),
        served: z.boolean().meta({
          description:
            "This deployment serves the chain: configured (its RPC answered the chain id at start-up) and api live",
        }),
        reachable: z
          .boolean()
          .nullable()
          .meta({
            description:
              "The chain's RPC answered the service's last check (its chain id at start-up, then the health checks'" +
              " eth_blockNumber, re-checked in the background once the last is 10 s old); null: not configured, or not checked yet",
          }),
        rpcCheckedAt: z.iso.datetime().nullable().meta({ description: "When that check was; null with reachable" }),
        rpcUrl: z.string().optional().meta({ description: "Only for the local development chain" }),
        contractAddresses: z.record(z.string(), z.string()).nullable(),
        safeContracts: SafeContracts.nullable().meta({
          description: "Safe chains with all four Safe contracts configured; null elsewhere",
        }),
      }),
    ),
    ens: z.object({
      domain: z.string().meta({ description: "Names are <username>.<provider>.<domain>", example: "idwallet.eth" }),
      chain: z.string().meta({ description: "Chain of the ENS registry" }),
      registry: z.string().nullable().meta({ description: "ENS registry, when not the chain's standard one" }),
      resolver: z.string().nullable().meta({ description: "ENS resolver of the domain (IdwalletResolver)" }),
      gateway: z.boolean().meta({ description: "This service answers the resolver's CCIP-read lookups" }),
    }),
    safeOperator: z.string().nullable().meta({
      description: "Address of the operator's owner key, one owner of every Safe account on every chain; null: not set",
    }),
  })
  .meta({ id: "NetworksResponse" });
