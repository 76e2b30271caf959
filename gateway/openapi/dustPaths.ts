import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import {
  AllOrdersItem,
  DustPageQuery,
  DustWalletQuery,
  OpenOrdersItem,
  WalletInformation,
} from "../routes/dust.schema";
import { Problem } from "./problem.schema";

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: Problem } },
});

/** The dust-order read interface (spec §4.11) in the OpenAPI document. */
export function registerDustPaths(registry: OpenAPIRegistry): void {
  const pageNote =
    "The answer is the spec's plain array; `limit` (default 100, at most 1000) and `offset` page it, and a full " +
    'page carries `Link: <…?limit=…&offset=…>; rel="next"`.';
  registry.registerPath({
    method: "get",
    path: "/api/{address}",
    summary: "A wallet's dust: listed tokens it holds, their values and status, and its swept orders",
    description:
      "Balances, decimals, the native balance and Chainlink feeds are read on chain in one Multicall3 call; " +
      "prices come from the operator's table or Chainlink AggregatorV3 feeds. No authentication (spec §4.11).",
    security: [{}],
    request: { params: z.object({ address: z.string() }), query: DustWalletQuery },
    responses: {
      200: {
        description: "The wallet's information (spec §2.8)",
        content: { "application/json": { schema: WalletInformation } },
      },
      400: problem("INVALID_REQUEST (not an address), UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE"),
      502: problem("RPC_UNAVAILABLE, CHAIN_READ_FAILED"),
      504: problem("RPC_TIMEOUT"),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/all-orders",
    summary: "Every open and swept dust order, newest first",
    description: pageNote,
    security: [{}],
    request: { query: DustPageQuery },
    responses: {
      200: { description: "Orders (spec §2.8)", content: { "application/json": { schema: z.array(AllOrdersItem) } } },
      400: problem("INVALID_REQUEST"),
    },
  });
  registry.registerPath({
    method: "get",
    path: "/api/orders",
    summary: "The open dust orders, newest first",
    description: pageNote,
    security: [{}],
    request: { query: DustPageQuery },
    responses: {
      200: {
        description: "Open orders (spec §2.8)",
        content: { "application/json": { schema: z.array(OpenOrdersItem) } },
      },
      400: problem("INVALID_REQUEST"),
    },
  });
}
