import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { EXAMPLE } from "../openapi/examples";
import { problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { NetworksResponse } from "./networks.schema";

const TAG: ApiTag = "Wallets";

/** The reference deployment's contracts, the same on every chain. */
const contractAddresses = {
  ownerAccount: "0x3a1Da83C53C515eD0C080a168CD496a614E6a3b0",
  kernelFactory: "0xceC3C4092E836F57feF220c11e29690fB504a671",
  baseFactory: "0xc2A0223513C809ADcc1054e29214172E7292eDf2",
};
const safeContracts = {
  singleton: "0x29fcB43b46531BcA003ddC8FCB67FFE91900C762",
  proxyFactory: "0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67",
  fallbackHandler: "0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99",
  multiSendCallOnly: "0x9641d764fc13c8B624c04430C7356C1C7C8102e2",
};

/** GET /v1/networks (the networks router) in the OpenAPI document. */
export function registerNetworksPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/networks",
    operationId: "listNetworks",
    security: [{}],
    tags: [TAG],
    summary: "The chains served here, the chains known and contract addresses",
    responses: {
      200: {
        description: "The chains this deployment serves, and every chain of the registry",
        content: {
          "application/json": {
            schema: NetworksResponse,
            // Two of the registry's chains: a production one this deployment has no RPC for, and the local one.
            example: {
              served: ["localhost"],
              networks: [
                {
                  name: "matic",
                  chainId: 137,
                  type: "production",
                  contracts: "deployed",
                  api: "live",
                  safe: true,
                  configured: false,
                  served: false,
                  reachable: null,
                  rpcCheckedAt: null,
                  contractAddresses,
                  safeContracts,
                },
                {
                  name: "localhost",
                  chainId: 31337,
                  type: "local",
                  contracts: "deployed",
                  api: "live",
                  safe: true,
                  configured: true,
                  served: true,
                  reachable: true,
                  rpcCheckedAt: "2026-11-22T12:00:00.000Z",
                  rpcUrl: "http://127.0.0.1:8545",
                  contractAddresses,
                  safeContracts,
                },
              ],
              ens: {
                domain: "idwallet.eth",
                chain: "eth",
                registry: null,
                resolver: "0x839EE6a8Fd3Db4557474EDE4601Aed96B48cB210",
                gateway: true,
              },
              safeOperator: EXAMPLE.operator,
            },
          },
        },
      },
      503: problem`${"MAINTENANCE"}`,
    },
  });
}
