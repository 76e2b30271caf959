import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { EXAMPLE } from "../openapi/examples";
import { JSON_BODY_MEDIA_TYPE, problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { LIST_SCAN_ROWS } from "../transactions/txListing";
import {
  CreateSafeBody,
  CustomSafeTxBody,
  DisperseBody,
  DisperseNftBody,
  ListSafesBody,
  SafeAccountResponse,
  SafeListResponse,
  SafeTxListQuery,
  SafeTxListResponse,
  TransferBody,
} from "./safes.schema";
import { SafeTxStatusResponse } from "../transactions/txViews.schema";
import { IdempotencyKey, TxStatusQuery } from "./transactions.schema";

const TAG: ApiTag = "Safe accounts";

const deployment = { txUuid: "64507268-7129-449f-bff5-9eceedb0f96a", status: "queued", transactionHash: null };
const account = {
  address: EXAMPLE.safe,
  chain: "localhost",
  owners: [EXAMPLE.signer, EXAMPLE.operator],
  threshold: 1,
  saltNonce: "1",
  deployment,
  createdAt: EXAMPLE.time,
};
const accepted = (action: string) => ({
  txUuid: "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
  action,
  status: "queued",
  chain: "localhost",
  safe: EXAMPLE.safe,
  safeTxHash: null,
  transactionHash: null,
  blockNumber: null,
  error: null,
  createdAt: EXAMPLE.time,
  updatedAt: EXAMPLE.time,
});
const included = {
  ...accepted("transfer"),
  status: "included",
  safeTxHash: "0x1f6d3b5a7c9e0f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a",
  transactionHash: EXAMPLE.txHash,
  blockNumber: 1843,
  updatedAt: EXAMPLE.later,
};
const oneEth = "1000000000000000000";

/** The Safe-account interface (spec §4.10; the safes router) in the OpenAPI document. */
export function registerSafePaths(registry: OpenAPIRegistry, bearer: string): void {
  const security = [{ [bearer]: [] }];
  const chainParam = z.object({ chain: z.string().meta({ example: "localhost" }) });
  const safeParams = chainParam.extend({ address: z.string().meta({ description: "The Safe's address" }) });
  const headers = z.object({
    "Idempotency-Key": IdempotencyKey.meta({
      description: "Retries with the same key return the first request (scoped to the app)",
    }),
  });
  const problems = {
    400: problem`${"INVALID_REQUEST"}, ${"UNKNOWN_CHAIN"}, ${"CHAIN_NOT_AVAILABLE"} (not a Safe chain),
      ${"VALUE_IN_DELEGATECALL"}`,
    401: problem`${"MISSING_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"}, ${"TOKEN_REVOKED"}, ${"APP_DISABLED"}`,
    409: problem`${"IDEMPOTENCY_KEY_REUSED"}`,
    413: problem`${"PAYLOAD_TOO_LARGE"}`,
    415: JSON_BODY_MEDIA_TYPE,
    503: problem`${"MAINTENANCE"}, ${"SAFE_NOT_CONFIGURED"}`,
  };
  /** A chain with an L1 data fee: its fee oracle is read to reserve the relay's fee from the budget. */
  const feeOracleProblems = {
    502: problem`${"RPC_UNAVAILABLE"}, ${"CHAIN_READ_FAILED"}: the chain's L1 data fee oracle could not be read`,
    504: problem`${"RPC_TIMEOUT"} (as for 502)`,
  };
  const txStatus = (example: object) => ({ "application/json": { schema: SafeTxStatusResponse, example } });

  registry.registerPath({
    method: "post",
    path: "/v1/{chain}/account",
    operationId: "createSafe",
    tags: [TAG],
    summary: "Create a 1-of-n Safe (signers + the operator)",
    description:
      "Safe 1.5.0 through SafeProxyFactory.createProxyWithNonce: owners are the signers and the operator's key, " +
      "threshold 1, the compatibility fallback handler. The address is answered at once; the deployment is a " +
      "request (`txUuid`) sent by the relayer. The same signers and saltNonce give the same address (409 SAFE_EXISTS " +
      "if it was created already).",
    security,
    request: {
      params: chainParam,
      headers,
      body: {
        required: true,
        content: {
          "application/json": { schema: CreateSafeBody, example: { signers: [EXAMPLE.signer], saltNonce: "1" } },
        },
      },
    },
    responses: {
      202: {
        description: "The Safe and its deployment request",
        content: {
          "application/json": {
            schema: SafeAccountResponse.extend({ txUuid: z.string(), status: z.string() }),
            example: { ...account, txUuid: deployment.txUuid, status: deployment.status },
          },
        },
      },
      ...problems,
      409: problem`${"SAFE_EXISTS"}, ${"IDEMPOTENCY_KEY_REUSED"}`,
      403: problem`${"POLICY_DENIED"} (rule chains)`,
      429: problem`${"BUDGET_EXCEEDED"}, ${"RATE_LIMITED"} (with Retry-After)`,
      ...feeOracleProblems,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/{chain}/accounts",
    operationId: "listSafes",
    tags: [TAG],
    summary: "List this app's Safes on a chain, oldest first, page by page",
    security,
    request: {
      params: chainParam,
      body: { content: { "application/json": { schema: ListSafesBody, example: { limit: 50 } } } },
    },
    responses: {
      200: {
        description: "A page of Safes",
        content: {
          "application/json": { schema: SafeListResponse, example: { accounts: [account], nextCursor: null } },
        },
      },
      400: problem`${"INVALID_REQUEST"}, ${"INVALID_CURSOR"}, ${"UNKNOWN_CHAIN"}, ${"CHAIN_NOT_AVAILABLE"}`,
      401: problems[401],
      413: problems[413],
      415: problems[415],
      503: problems[503],
    },
  });
  const actions = [
    {
      path: "custom",
      operationId: "sendSafeCustomCall",
      schema: CustomSafeTxBody,
      summary: "Send a call from the Safe (to the Safe itself, or a delegatecall, only with the operator's grant)",
      // approve(spender, 1000): any call data the Safe should send.
      example: {
        to: EXAMPLE.token,
        value: "0",
        data:
          "0x095ea7b3000000000000000000000000000000000000000000000000000000000000dead" +
          "00000000000000000000000000000000000000000000000000000000000003e8",
        operation: 0,
      },
      action: "custom",
    },
    {
      path: "payout/transfer",
      operationId: "sendSafeTransfer",
      schema: TransferBody,
      summary: "Transfer native coin or one ERC-20",
      example: { to: EXAMPLE.target, amount: oneEth },
      action: "transfer",
    },
    {
      path: "payout/disperse",
      operationId: "sendSafeDisperse",
      schema: DisperseBody,
      summary: "Pay many recipients native coin and ERC-20s in one Safe transaction (MultiSendCallOnly)",
      example: {
        transfers: [
          { to: EXAMPLE.target, amount: oneEth },
          { token: EXAMPLE.token, to: EXAMPLE.signer, amount: "40000000000000000000" },
        ],
      },
      action: "disperse",
    },
    {
      path: "payout/disperseNFT",
      operationId: "sendSafeDisperseNft",
      schema: DisperseNftBody,
      summary: "Transfer many ERC-721 and ERC-1155 tokens in one Safe transaction (MultiSendCallOnly)",
      example: {
        transfers: [
          { standard: "erc721", token: EXAMPLE.token, to: EXAMPLE.target, tokenId: "7" },
          { standard: "erc1155", token: EXAMPLE.token, to: EXAMPLE.signer, tokenId: "3", amount: "10" },
        ],
      },
      action: "disperseNFT",
    },
  ];
  for (const action of actions) {
    registry.registerPath({
      method: "post",
      path: `/v1/{chain}/account/{address}/${action.path}`,
      operationId: action.operationId,
      tags: [TAG],
      summary: action.summary,
      description:
        "Only the app that created the Safe may. The request is committed before the answer; the relayer sends " +
        "it as one execTransaction signed by the operator's key, after checking it against the chain (a call that " +
        "would revert ends `failed` with its reason, nothing sent). Follow it at .../tx/{txUuid}.",
      security,
      request: {
        params: safeParams,
        headers,
        body: { required: true, content: { "application/json": { schema: action.schema, example: action.example } } },
      },
      responses: {
        202: {
          description: "Accepted and stored (Location: the status URL)",
          content: txStatus(accepted(action.action)),
        },
        ...problems,
        403: problem`${"SAFE_NOT_OWNED"}, ${"SAFE_CALL_NOT_ALLOWED"} (a call to the Safe itself, a delegatecall or a
          Safe configuration call, without the operator's grant; \`calls\` says which and why), ${"POLICY_DENIED"}
          (rule chains; for custom also targets, maxValue)`,
        404: problem`${"NOT_FOUND"}: no Safe at this address was created through this service`,
        429: problem`${"BUDGET_EXCEEDED"}, ${"RATE_LIMITED"} (with Retry-After)`,
        ...feeOracleProblems,
      },
    });
  }
  registry.registerPath({
    method: "get",
    path: "/v1/{chain}/account/{address}/tx/{txUuid}",
    operationId: "getSafeTransaction",
    tags: [TAG],
    summary: "Where a Safe request stands",
    security,
    request: { params: safeParams.extend({ txUuid: z.string() }), query: TxStatusQuery },
    responses: {
      200: { description: "The request's state", content: txStatus(included) },
      401: problems[401],
      403: problem`${"SAFE_NOT_OWNED"}`,
      404: problem`${"NOT_FOUND"}`,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/{chain}/account/{address}/txs",
    operationId: "listSafeTransactions",
    tags: [TAG],
    summary: "List a Safe's requests, newest first, page by page",
    description:
      "Only the app that created the Safe may (403 SAFE_NOT_OWNED otherwise): its deployment, custom calls and " +
      "payouts. `status` filters them. Follow `nextCursor` until it is null: a page reads at most " +
      `${LIST_SCAN_ROWS} requests, so with a status filter a page may hold fewer than \`limit\`, even none, before ` +
      "the last.",
    security,
    request: { params: safeParams, query: SafeTxListQuery },
    responses: {
      200: {
        description: "A page of the Safe's requests",
        content: {
          "application/json": { schema: SafeTxListResponse, example: { items: [included], nextCursor: null } },
        },
      },
      400: problem`${"INVALID_REQUEST"} (a parameter out of range, or unknown; an address that is none),
        ${"INVALID_CURSOR"} (not a nextCursor this listing gave out, with the same filter, to this app),
        ${"UNKNOWN_CHAIN"}, ${"CHAIN_NOT_AVAILABLE"} (not a Safe chain)`,
      401: problems[401],
      403: problem`${"SAFE_NOT_OWNED"}`,
      404: problem`${"NOT_FOUND"}: no Safe at this address was created through this service`,
      503: problem`${"SAFE_NOT_CONFIGURED"}`,
    },
  });
}
