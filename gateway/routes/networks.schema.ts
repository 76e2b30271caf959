import { z } from "zod";

/** GET /v1/networks answer. */
export const NetworksResponse = z
  .object({
    networks: z.array(
      z.object({
        name: z.string().meta({ description: "ERC-3770 short name", example: "matic" }),
        chainId: z.number().int(),
        type: z.enum(["production", "testnet", "local"]),
        contracts: z.enum(["deployed", "in-construction"]),
        api: z.enum(["live", "planned", "none"]),
        safe: z.boolean().meta({ description: "Safe-account interface served on this chain" }),
        configured: z.boolean().meta({ description: "This deployment has an RPC connection to the chain" }),
        rpcUrl: z.string().optional().meta({ description: "Only for the local development chain" }),
        contractAddresses: z.record(z.string(), z.string()).nullable(),
      }),
    ),
    ens: z.object({
      domain: z.string().meta({ description: "Names are <username>.<provider>.<domain>", example: "idwallet.eth" }),
      chain: z.string().meta({ description: "Chain of the ENS registry" }),
      registry: z.string().nullable().meta({ description: "ENS registry, when not the chain's standard one" }),
      resolver: z.string().nullable().meta({ description: "OffchainResolver of the domain" }),
      gateway: z.boolean().meta({ description: "This service answers the resolver's CCIP-read lookups" }),
    }),
  })
  .meta({ id: "NetworksResponse" });
