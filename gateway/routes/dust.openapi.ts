import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { EXAMPLE } from "../openapi/examples";
import { problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { AllOrdersItem, DustPageQuery, DustWalletQuery, OpenOrdersItem, WalletInformation } from "./dust.schema";

const TAG: ApiTag = "Dust";

/** The local stack's demo ERC-20 (0.50 USD) and ETH at 3000 USD, as the README's dust walk-through shows them. */
const walletInformation = {
  address: "0x1111111111111111111111111111111111111111",
  portfolio: [
    {
      token: { symbol: "DEMO", contract_address: EXAMPLE.token, status: "sweepable" },
      balance: { amount: 40, asset_type: "erc20", usd_value: 20, eth_value: 0.006666666666666667 },
      quote_rate: 0.5,
      last_transferred_at: "2026-11-23T10:00:00.000Z",
      sweeping_value: { usd: 20, eth: 0.006666666666666667 },
    },
  ],
  past_orders: [
    {
      blockNum: 77,
      time: "2026-11-20T09:30:00.000Z",
      erc20: { symbol: "DEMO", address: EXAMPLE.token, amount: "3" },
      hash: EXAMPLE.txHash,
      value: { eth: "0.0005", usd: 1.5 },
      ethPrice: 3000,
    },
  ],
};
const order = {
  balance: "3",
  maker: "0x1111111111111111111111111111111111111111",
  time: EXAMPLE.time,
  tx: EXAMPLE.txHash,
};

/** The dust-order read interface (spec §4.11; the dust router) in the OpenAPI document. */
export function registerDustPaths(registry: OpenAPIRegistry): void {
  const pageNote =
    "The answer is the spec's plain array; `limit` (default 100, at most 1000) and `offset` page it, and a full " +
    'page carries `Link: <…?limit=…&offset=…>; rel="next"`.';
  registry.registerPath({
    method: "get",
    path: "/api/{address}",
    operationId: "getDustWallet",
    tags: [TAG],
    summary: "A wallet's dust: listed tokens it holds, their values and status, and its swept orders",
    description:
      "Balances, decimals, the native balance and Chainlink feeds are read on chain in one Multicall3 call; " +
      "prices come from the operator's table or Chainlink AggregatorV3 feeds. No authentication (spec §4.11).",
    security: [{}],
    request: { params: z.object({ address: z.string() }), query: DustWalletQuery },
    responses: {
      200: {
        description: "The wallet's information (spec §2.8)",
        content: { "application/json": { schema: WalletInformation, example: walletInformation } },
      },
      400: problem`${"INVALID_REQUEST"} (not an address), ${"UNKNOWN_CHAIN"}, ${"CHAIN_NOT_AVAILABLE"}`,
      429: problem`${"RATE_LIMITED"} (with Retry-After): DUST_PER_IP_PER_MINUTE views from this address, or
        DUST_READS_PER_SECOND of the chain's`,
      502: problem`${"RPC_UNAVAILABLE"}, ${"CHAIN_READ_FAILED"}`,
      504: problem`${"RPC_TIMEOUT"}`,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/all-orders",
    operationId: "listDustOrders",
    tags: [TAG],
    summary: "Every open and swept dust order, newest first",
    description: pageNote,
    security: [{}],
    request: { query: DustPageQuery },
    responses: {
      200: {
        description: "Orders (spec §2.8)",
        content: { "application/json": { schema: z.array(AllOrdersItem), example: [{ ...order, symbol: "DEMO" }] } },
      },
      400: problem`${"INVALID_REQUEST"}`,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/orders",
    operationId: "listOpenDustOrders",
    tags: [TAG],
    summary: "The open dust orders, newest first",
    description: pageNote,
    security: [{}],
    request: { query: DustPageQuery },
    responses: {
      200: {
        description: "Open orders (spec §2.8)",
        content: {
          "application/json": {
            schema: z.array(OpenOrdersItem),
            example: [{ ...order, token: ["DEMO", EXAMPLE.token] }],
          },
        },
      },
      400: problem`${"INVALID_REQUEST"}`,
    },
  });
}
