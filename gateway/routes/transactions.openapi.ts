import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { EXAMPLE } from "../openapi/examples";
import { JSON_BODY_MEDIA_TYPE, problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { LIST_SCAN_ROWS } from "../transactions/txListing";
import { TxStatusResponse } from "../transactions/txViews.schema";
import {
  BaseTxRequestBody,
  IdempotencyKey,
  KernelTxRequestBody,
  TxListQuery,
  TxListResponse,
  TxStatusQuery,
} from "./transactions.schema";

const TAG: ApiTag = "Transactions";

/** One call: 0.001 of the native coin to a target, no call data. */
const request = {
  userId: EXAMPLE.userId,
  chain: "localhost",
  to: [EXAMPLE.target],
  value: ["1000000000000000"],
  data: ["0x"],
  auth: EXAMPLE.userToken,
};
const accepted = {
  id: "ea79f62a-4352-4ec0-9186-d67878176f8f",
  status: "queued",
  userId: EXAMPLE.userId,
  chain: "localhost",
  sender: EXAMPLE.wallet,
  userOpHash: null,
  transactionHash: null,
  blockNumber: null,
  success: null,
  error: null,
  createdAt: EXAMPLE.time,
  updatedAt: EXAMPLE.time,
};
const included = {
  ...accepted,
  status: "included",
  userOpHash: EXAMPLE.userOpHash,
  transactionHash: EXAMPLE.txHash,
  blockNumber: 1842,
  success: true,
  updatedAt: EXAMPLE.later,
};
/** The base wallet of the same id: another address. */
const baseAccepted = {
  ...accepted,
  id: "2b39efb6-2945-4ced-a116-ae65a5f52659",
  sender: "0xaA0f209193805C56A0ce6818E8e76Fb2dbE9D02A",
};

const txProblems = {
  400: problem`${"INVALID_REQUEST"}, ${"ARRAY_LENGTH_MISMATCH"}, ${"TOO_MANY_CALLS"}, ${"VALUE_IN_DELEGATECALL"},
    ${"INVALID_USER_ID"}, ${"NATIVE_LOGIN_UNAVAILABLE"}, ${"UNKNOWN_PROVIDER"}, ${"UNKNOWN_CHAIN"},
    ${"CHAIN_NOT_AVAILABLE"}`,
  401: problem`${"MISSING_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"}, ${"TOKEN_REVOKED"}, ${"APP_DISABLED"},
    ${"PROOF_REQUIRED"}, ${"INVALID_PROOF"}, ${"PROOF_EXPIRED"}, ${"PROOF_UNBOUND"}`,
  403: problem`${"PROOF_MISMATCH"}, ${"PROOF_WRONG_APP"}, ${"PROVIDER_NOT_OWNED"}, ${"PROVIDER_DISABLED"},
    ${"PROVIDER_REGISTRATION_OUTDATED"}, ${"TEST_MODE_NOT_ALLOWED"}, ${"CALL_NOT_ALLOWED"} (a call to the wallet
    itself or the owner account, or a delegatecall the app was not granted; \`calls\` lists each with its reason:
    SELF_CALL, OWNER_ACCOUNT_CALL, DELEGATECALL_NOT_GRANTED), ${"POLICY_DENIED"} (\`rule\`: chains, targets, maxValue
    or userDailyCap)`,
  409: problem`${"IDEMPOTENCY_KEY_REUSED"}: the Idempotency-Key was used for another request`,
  413: problem`${"PAYLOAD_TOO_LARGE"}`,
  415: JSON_BODY_MEDIA_TYPE,
  429: problem`${"BUDGET_EXCEEDED"} (the app's gas budget on the chain: remainingGas, requestGas, freesAt,
    Retry-After), ${"RATE_LIMITED"} (the app's request rate, with Retry-After)`,
  502: problem`${"RPC_UNAVAILABLE"}, ${"CHAIN_READ_FAILED"}: on a chain that charges an L1 data fee, its fee oracle
    could not be read to reserve the fee from the budget`,
  503: problem`${"MAINTENANCE"}, ${"TX_NOT_CONFIGURED"}`,
  504: problem`${"RPC_TIMEOUT"} (as for 502)`,
};
const statusProblems = {
  401: problem`${"MISSING_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"}, ${"TOKEN_REVOKED"}, ${"APP_DISABLED"}`,
  404: problem`${"NOT_FOUND"}`,
};
const listProblems = {
  400: problem`${"INVALID_REQUEST"} (a parameter out of range, or unknown), ${"INVALID_USER_ID"}, ${"UNKNOWN_CHAIN"},
    ${"INVALID_CURSOR"} (not a nextCursor this listing gave out, with the same filters, to this app)`,
  401: statusProblems[401],
};
const idempotencyHeader = z.object({
  "Idempotency-Key": IdempotencyKey.meta({
    description: "Retries with the same key return the first request's record (scoped to the app)",
  }),
});
const txStatus = (example: object) => ({ "application/json": { schema: TxStatusResponse, example } });

/** POST and GET /v1/kernel/tx and the deprecated /v1/base/tx (the transactions router) in the OpenAPI document. */
export function registerTransactionPaths(registry: OpenAPIRegistry, bearer: string): void {
  const security = [{ [bearer]: [] }];
  registry.registerPath({
    method: "post",
    path: "/v1/kernel/tx",
    operationId: "sendKernelTransaction",
    tags: [TAG],
    summary: "Send calls from a user's wallet (asynchronous, durable)",
    description:
      "Needs the app's bearer token and the user's proof in `auth`. Entry i of `to`, `value`, `data` is call i; " +
      "several calls run in order, all or nothing. The request is committed before the answer; follow it with " +
      "GET /v1/kernel/tx/{id}. Gas is sponsored by the operator's paymaster.",
    security,
    request: {
      headers: idempotencyHeader,
      body: { required: true, content: { "application/json": { schema: KernelTxRequestBody, example: request } } },
    },
    responses: {
      202: { description: "Accepted and stored (Location: the status URL)", content: txStatus(accepted) },
      ...txProblems,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/kernel/tx/{id}",
    operationId: "getKernelTransaction",
    tags: [TAG],
    summary: "Where a transaction request stands",
    description:
      "Only the app that submitted it sees it (404 otherwise). `wait=true` holds the request until it is final.",
    security,
    request: { params: z.object({ id: z.string() }), query: TxStatusQuery },
    responses: { 200: { description: "The request's state", content: txStatus(included) }, ...statusProblems },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/kernel/tx",
    operationId: "listKernelTransactions",
    tags: [TAG],
    summary: "List this app's Kernel transaction requests, newest first, page by page",
    description:
      "Only the app's own requests (never another app's, whatever the filters or the cursor), Kernel wallets only " +
      "(base-wallet requests are read by id). Filters are optional: `userId` in any spelling of it, `chain`, " +
      `\`status\`. Follow \`nextCursor\` until it is null: a page reads at most ${LIST_SCAN_ROWS} requests, so with a ` +
      "chain or status filter a page may hold fewer than `limit`, even none, before the last.",
    security,
    request: { query: TxListQuery },
    responses: {
      200: {
        description: "A page of requests",
        content: { "application/json": { schema: TxListResponse, example: { items: [included], nextCursor: null } } },
      },
      ...listProblems,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/base/tx",
    operationId: "sendBaseTransaction",
    tags: [TAG],
    summary: "Send calls from a user's base wallet (deprecated)",
    description:
      "The deprecated base account type, through the same pipeline as /v1/kernel/tx; answers 200 as the original " +
      "interface did, with Deprecation and Link (successor-version) headers. Follow it with GET /v1/base/tx/{id}.",
    deprecated: true,
    security,
    request: {
      headers: idempotencyHeader,
      body: { required: true, content: { "application/json": { schema: BaseTxRequestBody, example: request } } },
    },
    responses: { 200: { description: "Accepted and stored", content: txStatus(baseAccepted) }, ...txProblems },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/base/tx/{id}",
    operationId: "getBaseTransaction",
    tags: [TAG],
    summary: "Where a base-wallet transaction request stands (deprecated)",
    deprecated: true,
    security,
    request: { params: z.object({ id: z.string() }), query: TxStatusQuery },
    responses: { 200: { description: "The request's state", content: txStatus(baseAccepted) }, ...statusProblems },
  });
}
