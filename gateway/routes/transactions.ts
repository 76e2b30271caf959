import type { ErrorCode } from "../errors/errorCodes";
import { ACCOUNT_TYPES, type AccountType } from "../identity/walletAddress";
import { type Route, defineRoute } from "../http/route";
import { waitForFinal } from "../accept/requestAcceptance";
import { type TransactionsDeps, findTransaction, submitTransaction } from "../accept/transactions";
import { listTransactions } from "../accept/transactionListing";
import { transactionView } from "../transactions/txViews";
import { registerTransactionPaths } from "./transactions.openapi";
import {
  BaseTxRequestBody,
  IdempotencyKey,
  KernelTxRequestBody,
  TxListQuery,
  TxStatusQuery,
} from "./transactions.schema";

/** Where each account type's requests are posted; a request's status is at `<path>/<id>`. */
export const TX_PATH = { kernel: "/v1/kernel/tx", base: "/v1/base/tx" } as const;

/** RFC 9745 / RFC 8594: the base account endpoints are deprecated in favour of the Kernel ones. */
const DEPRECATION = {
  Deprecation: "@1704067200",
  Link: '</v1/kernel/tx>; rel="successor-version", </docs>; rel="deprecation"',
};

/** The body schema of a request of each account type. */
export const TX_REQUEST_BODY = { kernel: KernelTxRequestBody, base: BaseTxRequestBody } as const;

/** What the transactions routes serve from: the accept path's parts, and how long a status request may wait. */
export interface TransactionRoutesDeps {
  readonly transactions: TransactionsDeps;
  readonly waitTimeoutMs: number;
}

const POST_PROBLEMS: readonly ErrorCode[] = [
  "INVALID_REQUEST",
  "ARRAY_LENGTH_MISMATCH",
  "TOO_MANY_CALLS",
  "VALUE_IN_DELEGATECALL",
  "INVALID_USER_ID",
  "NATIVE_LOGIN_UNAVAILABLE",
  "UNKNOWN_PROVIDER",
  "UNKNOWN_CHAIN",
  "CHAIN_NOT_AVAILABLE",
  "MISSING_TOKEN",
  "INVALID_TOKEN",
  "TOKEN_EXPIRED",
  "TOKEN_REVOKED",
  "APP_DISABLED",
  "PROOF_REQUIRED",
  "INVALID_PROOF",
  "PROOF_EXPIRED",
  "PROOF_UNBOUND",
  "PROOF_MISMATCH",
  "PROOF_WRONG_APP",
  "PROVIDER_NOT_OWNED",
  "PROVIDER_DISABLED",
  "PROVIDER_REGISTRATION_OUTDATED",
  "TEST_MODE_NOT_ALLOWED",
  "CALL_NOT_ALLOWED",
  "POLICY_DENIED",
  "IDEMPOTENCY_KEY_REUSED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "BUDGET_EXCEEDED",
  "RATE_LIMITED",
  "RPC_UNAVAILABLE",
  "CHAIN_READ_FAILED",
  "MAINTENANCE",
  "TX_NOT_CONFIGURED",
  "RPC_TIMEOUT",
];
const STATUS_PROBLEMS: readonly ErrorCode[] = [
  "MISSING_TOKEN",
  "INVALID_TOKEN",
  "TOKEN_EXPIRED",
  "TOKEN_REVOKED",
  "APP_DISABLED",
  "NOT_FOUND",
];
const LIST_PROBLEMS: readonly ErrorCode[] = [
  "INVALID_REQUEST",
  "INVALID_USER_ID",
  "UNKNOWN_CHAIN",
  "INVALID_CURSOR",
  "MISSING_TOKEN",
  "INVALID_TOKEN",
  "TOKEN_EXPIRED",
  "TOKEN_REVOKED",
  "APP_DISABLED",
];

/**
 * POST /v1/kernel/tx (spec §4.3), GET /v1/kernel/tx/{id}, and the deprecated POST /v1/base/tx (spec §4.9) with
 * GET /v1/base/tx/{id}: bearer token and user proof; the request is committed before the answer, or, past its
 * deadline, never. The Kernel routes, the hot ones, are also on the node:http fast path. GET /v1/kernel/tx lists the
 * app's Kernel requests (express only: a listing is not a hot path).
 */
export const transactionRoutes = (deps: TransactionRoutesDeps): Route[] =>
  ACCOUNT_TYPES.flatMap((type) => [
    acceptRoute(type, deps),
    statusRoute(type, deps),
    // The deprecated base wallet gets no listing: its requests stay readable by id, and no new route is added to it.
    ...(type === "kernel" ? [listRoute(type, deps)] : []),
  ]);

/** What both routes of an account type share: the bearer token, the document, the fast path or the deprecation. */
const routeBasics = (type: AccountType) =>
  ({
    auth: "required",
    openapi: registerTransactionPaths,
    ...(type === "base" ? { headers: DEPRECATION } : { fast: true }),
  }) as const;

/** POST <path>: a request accepted (committed before the answer; with an Idempotency-Key, once) or refused. */
const acceptRoute = (type: AccountType, deps: TransactionRoutesDeps): Route =>
  defineRoute({
    ...routeBasics(type),
    method: "POST",
    path: TX_PATH[type],
    body: { schema: TX_REQUEST_BODY[type], mediaTypes: ["application/json"] },
    problems: POST_PROBLEMS,
    handle: async ({ body, principal, header, deadline }) => {
      const key = IdempotencyKey.parse(header("idempotency-key"));
      const calls = { ...body, delegatecall: "delegatecall" in body ? (body.delegatecall as 0 | 1) : 0 };
      const { record, created } = await submitTransaction(type, calls, key, principal!, deps.transactions, deadline);
      return {
        // Spec §4.9 answers the deprecated endpoint with 200; the Kernel one is asynchronous, 202 Accepted.
        status: type === "base" ? 200 : 202,
        headers: { ...(created ? {} : { "Idempotent-Replayed": "true" }), Location: `${TX_PATH[type]}/${record.id}` },
        body: transactionView(record),
      };
    },
  });

/** GET <path>/{id}: where the app's request stands; with `wait=true`, once final or the wait limit has passed. */
const statusRoute = (type: AccountType, deps: TransactionRoutesDeps): Route =>
  defineRoute({
    ...routeBasics(type),
    method: "GET",
    path: `${TX_PATH[type]}/:id`,
    query: TxStatusQuery,
    problems: STATUS_PROBLEMS,
    handle: async ({ params, query, principal, closed }) => {
      const { repository } = deps.transactions;
      const record = await findTransaction(type, params.id!, principal!, repository);
      if (query.wait !== "true") return { status: 200, body: transactionView(record) };
      const final = await waitForFinal(record, repository, { timeoutMs: deps.waitTimeoutMs, signal: closed() });
      return { status: 200, body: transactionView(final) };
    },
  });

/**
 * GET <path>: the app's own requests through wallets of this type, newest first, a page at a time; a user id, a chain
 * and a status filter them, each optional.
 */
const listRoute = (type: AccountType, deps: TransactionRoutesDeps): Route =>
  defineRoute({
    auth: "required",
    openapi: registerTransactionPaths,
    method: "GET",
    path: TX_PATH[type],
    query: TxListQuery,
    problems: LIST_PROBLEMS,
    handle: async ({ query, principal }) => {
      const page = await listTransactions(type, query, principal!, deps.transactions);
      return { status: 200, body: { items: page.records.map(transactionView), nextCursor: page.nextCursor } };
    },
  });
