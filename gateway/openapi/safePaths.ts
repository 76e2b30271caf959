import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import {
  CreateSafeBody,
  CustomSafeTxBody,
  DisperseBody,
  DisperseNftBody,
  ListSafesBody,
  SafeAccountResponse,
  SafeListResponse,
  SafeTxStatusResponse,
  TransferBody,
} from "../routes/safes.schema";
import { IdempotencyKey, TxStatusQuery } from "../routes/transactions.schema";
import { Problem } from "./problem.schema";

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: Problem } },
});

/** The Safe-account interface (spec §4.10) in the OpenAPI document. */
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
    400: problem("INVALID_REQUEST, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain), VALUE_IN_DELEGATECALL"),
    401: problem("MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED"),
    409: problem("IDEMPOTENCY_KEY_REUSED"),
    413: problem("PAYLOAD_TOO_LARGE"),
    503: problem("MAINTENANCE, SAFE_NOT_CONFIGURED"),
  };
  const txStatus = { "application/json": { schema: SafeTxStatusResponse } };

  registry.registerPath({
    method: "post",
    path: "/v1/{chain}/account",
    summary: "Create a 1-of-n Safe (signers + the operator)",
    description:
      "Safe 1.5.0 through SafeProxyFactory.createProxyWithNonce: owners are the signers and the operator's key, " +
      "threshold 1, the compatibility fallback handler. The address is answered at once; the deployment is a " +
      "request (`txUuid`) sent by the relayer. The same signers and saltNonce give the same address (409 SAFE_EXISTS " +
      "if it was created already).",
    security,
    request: { params: chainParam, headers, body: { content: { "application/json": { schema: CreateSafeBody } } } },
    responses: {
      202: {
        description: "The Safe and its deployment request",
        content: {
          "application/json": {
            schema: SafeAccountResponse.extend({ txUuid: z.string(), status: z.string() }),
          },
        },
      },
      ...problems,
      409: problem("SAFE_EXISTS, IDEMPOTENCY_KEY_REUSED"),
      403: problem("POLICY_DENIED (rule chains)"),
      429: problem("BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After)"),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/{chain}/accounts",
    summary: "List this app's Safes on a chain, oldest first, page by page",
    security,
    request: { params: chainParam, body: { content: { "application/json": { schema: ListSafesBody } } } },
    responses: {
      200: { description: "A page of Safes", content: { "application/json": { schema: SafeListResponse } } },
      400: problem("INVALID_REQUEST, INVALID_CURSOR, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE"),
      401: problems[401],
      503: problems[503],
    },
  });
  const actions = [
    { path: "custom", schema: CustomSafeTxBody, summary: "Send any call (or delegatecall) from the Safe" },
    { path: "payout/transfer", schema: TransferBody, summary: "Transfer native coin or one ERC-20" },
    {
      path: "payout/disperse",
      schema: DisperseBody,
      summary: "Pay many recipients native coin and ERC-20s in one Safe transaction (MultiSendCallOnly)",
    },
    {
      path: "payout/disperseNFT",
      schema: DisperseNftBody,
      summary: "Transfer many ERC-721 and ERC-1155 tokens in one Safe transaction (MultiSendCallOnly)",
    },
  ];
  for (const action of actions) {
    registry.registerPath({
      method: "post",
      path: `/v1/{chain}/account/{address}/${action.path}`,
      summary: action.summary,
      description:
        "Only the app that created the Safe may. The request is committed before the answer; the relayer sends " +
        "it as one execTransaction signed by the operator's key, after checking it against the chain (a call that " +
        "would revert ends `failed` with its reason, nothing sent). Follow it at .../tx/{txUuid}.",
      security,
      request: { params: safeParams, headers, body: { content: { "application/json": { schema: action.schema } } } },
      responses: {
        202: { description: "Accepted and stored (Location: the status URL)", content: txStatus },
        ...problems,
        403: problem("SAFE_NOT_OWNED, POLICY_DENIED (rule chains; for custom also targets, maxValue)"),
        404: problem("NOT_FOUND: no Safe at this address was created through this service"),
        429: problem("BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After)"),
      },
    });
  }
  registry.registerPath({
    method: "get",
    path: "/v1/{chain}/account/{address}/tx/{txUuid}",
    summary: "Where a Safe request stands",
    security,
    request: { params: safeParams.extend({ txUuid: z.string() }), query: TxStatusQuery },
    responses: {
      200: { description: "The request's state", content: txStatus },
      401: problems[401],
      403: problem("SAFE_NOT_OWNED"),
      404: problem("NOT_FOUND"),
    },
  });
}
