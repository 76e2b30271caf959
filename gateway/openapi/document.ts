import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { TokenRequest, TokenResponse } from "../routes/auth.schema";
import { SignRequestBody, SignResponse } from "../routes/kernelSign.schema";
import { NetworksResponse } from "../routes/networks.schema";
import { SignInWithOtpRequest, SignInWithOtpResponse, VerifyOtpRequest, VerifyOtpResponse } from "../routes/otp.schema";
import { ResolverRequest, ResolverResponse } from "../routes/resolver.schema";
import {
  BaseTxRequestBody,
  IdempotencyKey,
  KernelTxRequestBody,
  TxStatusQuery,
  TxStatusResponse,
} from "../routes/transactions.schema";
import { z } from "zod";
import { CcipRequest, CcipResponse } from "../ens/ccip.schema";
import { Problem } from "./problem.schema";
import { registerDustPaths } from "./dustPaths";
import { registerSafePaths } from "./safePaths";
import { registerWebhookPaths } from "./webhookPaths";

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: Problem } },
});

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(serverUrl?: string): object {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });

  registry.registerPath({
    method: "post",
    path: "/v1/auth",
    summary: "Get an app bearer token (OAuth 2.0 client credentials)",
    description:
      "Form fields client_id and client_secret (or HTTP Basic), grant_type=client_credentials optional. " +
      "The token is valid for 60 minutes; errors carry RFC 6749 `error` and `error_description`.",
    security: [{}],
    request: { body: { content: { "application/x-www-form-urlencoded": { schema: TokenRequest } } } },
    responses: {
      200: { description: "A bearer token", content: { "application/json": { schema: TokenResponse } } },
      400: problem("invalid_request, unsupported_grant_type"),
      401: problem("invalid_client (unknown client, wrong secret, disabled app)"),
      429: problem("RATE_LIMITED: too many requests for this client id or from this address (Retry-After)"),
      503: problem("MAINTENANCE"),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/resolver",
    summary: "Resolve user ids to wallet addresses",
    description:
      "Pure computation: no sign-up, no chain access. The bearer token is optional unless the operator requires it; " +
      "a token that is sent must be valid. The body may be sent as application/json or as text/plain JSON text.",
    security: [{}, { [bearer.name]: [] }],
    request: {
      body: {
        content: { "application/json": { schema: ResolverRequest }, "text/plain": { schema: ResolverRequest } },
      },
    },
    responses: {
      200: {
        description: "One entry per requested id, in request order",
        content: { "application/json": { schema: ResolverResponse } },
      },
      400: problem("INVALID_REQUEST, MALFORMED_JSON, INVALID_USER_ID (lists each bad id) or TOO_MANY_USER_IDS"),
      401: problem(
        "MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, or MISSING_TOKEN when required",
      ),
      413: problem("PAYLOAD_TOO_LARGE"),
      415: problem("UNSUPPORTED_MEDIA_TYPE"),
      503: problem("MAINTENANCE"),
    },
  });

  registry.registerPath({
    method: "get",
    path: "/v1/networks",
    summary: "Supported chains and contract addresses",
    responses: {
      200: {
        description: "Every chain of the registry",
        content: { "application/json": { schema: NetworksResponse } },
      },
      503: problem("MAINTENANCE"),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/functions/v1/signInWithOTP",
    summary: "Send a 6-digit login code by SMS (US/Canada +1 numbers)",
    description:
      "Part of the auth server ({auth_url}); also served on AUTH_PORT when set. The code is valid 5 minutes; " +
      "every code sent in the last OTP_TTL_SECONDS works until one logs in; resends wait for a cooldown.",
    request: { body: { content: { "application/json": { schema: SignInWithOtpRequest } } } },
    responses: {
      200: { description: "Code sent", content: { "application/json": { schema: SignInWithOtpResponse } } },
      400: problem("INVALID_PHONE, INVALID_REQUEST"),
      429: problem("OTP_COOLDOWN, RATE_LIMITED (with Retry-After)"),
      502: problem("SMS_DELIVERY_FAILED"),
      503: problem("MAINTENANCE"),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/functions/v1/verifyOTP",
    summary: "Exchange the code for a user token (the `auth` proof of tel: ids)",
    description:
      "The app's bearer token is optional (the spec's flow sends none). With it, the user token is bound to that app " +
      "(`azp`): no other app may use it. A token that is sent must be valid; otherwise 401 and the code stays unused.",
    security: [{}, { [bearer.name]: [] }],
    request: { body: { content: { "application/json": { schema: VerifyOtpRequest } } } },
    responses: {
      200: {
        description: "A user token naming tel:<digits>, bound to the app when it sent its bearer token",
        content: { "application/json": { schema: VerifyOtpResponse } },
      },
      400: problem("INVALID_PHONE, INVALID_REQUEST"),
      401: problem(
        "INVALID_OTP (with retryAfter after a wrong code), OTP_EXPIRED; a bearer token that was sent and does not " +
          "authenticate: MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, APP_DISABLED",
      ),
      503: problem("MAINTENANCE"),
    },
  });

  registry.registerPath({
    method: "post",
    path: "/v1/kernel/sign",
    summary: "Sign a hash with a user's wallet (EIP-1271; ERC-6492 before deployment)",
    description:
      "Needs the app's bearer token and the user's proof in `auth`. The signature is over the wallet's replay-safe " +
      "EIP-712 wrapping of the hash (domain: name 'idwallet Kernel', version '1', the wallet; no chain id).",
    security: [{ [bearer.name]: [] }],
    request: { body: { content: { "application/json": { schema: SignRequestBody } } } },
    responses: {
      200: { description: "The signature", content: { "application/json": { schema: SignResponse } } },
      400: problem(
        "INVALID_REQUEST, INVALID_USER_ID, NATIVE_LOGIN_UNAVAILABLE, UNKNOWN_PROVIDER, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE",
      ),
      401: problem(
        "MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, PROOF_REQUIRED, INVALID_PROOF, " +
          "PROOF_EXPIRED, PROOF_UNBOUND",
      ),
      403: problem(
        "PROOF_MISMATCH, PROOF_WRONG_APP, PROVIDER_NOT_OWNED, PROVIDER_DISABLED, PROVIDER_REGISTRATION_OUTDATED, " +
          "TEST_MODE_NOT_ALLOWED",
      ),
      503: problem("MAINTENANCE, SIGNER_NOT_CONFIGURED"),
    },
  });

  const txProblems = {
    400: problem(
      "INVALID_REQUEST, ARRAY_LENGTH_MISMATCH, TOO_MANY_CALLS, VALUE_IN_DELEGATECALL, INVALID_USER_ID, " +
        "NATIVE_LOGIN_UNAVAILABLE, UNKNOWN_PROVIDER, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE",
    ),
    401: problem(
      "MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, PROOF_REQUIRED, INVALID_PROOF, " +
        "PROOF_EXPIRED, PROOF_UNBOUND",
    ),
    403: problem(
      "PROOF_MISMATCH, PROOF_WRONG_APP, PROVIDER_NOT_OWNED, PROVIDER_DISABLED, PROVIDER_REGISTRATION_OUTDATED, " +
        "TEST_MODE_NOT_ALLOWED, CALL_NOT_ALLOWED (a call to the wallet itself or the owner account, or a " +
        "delegatecall the app was not granted; `calls` lists each with its reason: SELF_CALL, OWNER_ACCOUNT_CALL, " +
        "DELEGATECALL_NOT_GRANTED), POLICY_DENIED (`rule`: chains, targets, maxValue or userDailyCap)",
    ),
    409: problem("IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request"),
    413: problem("PAYLOAD_TOO_LARGE"),
    429: problem(
      "BUDGET_EXCEEDED (the app's gas budget on the chain: remainingGas, requestGas, freesAt, Retry-After), " +
        "RATE_LIMITED (the app's request rate, with Retry-After)",
    ),
    503: problem("MAINTENANCE, TX_NOT_CONFIGURED"),
  };
  const idempotencyHeader = z.object({
    "Idempotency-Key": IdempotencyKey.meta({
      description: "Retries with the same key return the first request's record (scoped to the app)",
    }),
  });
  const txStatus = { "application/json": { schema: TxStatusResponse } };
  registry.registerPath({
    method: "post",
    path: "/v1/kernel/tx",
    summary: "Send calls from a user's wallet (asynchronous, durable)",
    description:
      "Needs the app's bearer token and the user's proof in `auth`. Entry i of `to`, `value`, `data` is call i; " +
      "several calls run in order, all or nothing. The request is committed before the answer; follow it with " +
      "GET /v1/kernel/tx/{id}. Gas is sponsored by the operator's paymaster.",
    security: [{ [bearer.name]: [] }],
    request: { headers: idempotencyHeader, body: { content: { "application/json": { schema: KernelTxRequestBody } } } },
    responses: {
      202: { description: "Accepted and stored (Location: the status URL)", content: txStatus },
      ...txProblems,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/kernel/tx/{id}",
    summary: "Where a transaction request stands",
    description:
      "Only the app that submitted it sees it (404 otherwise). `wait=true` holds the request until it is final.",
    security: [{ [bearer.name]: [] }],
    request: { params: z.object({ id: z.string() }), query: TxStatusQuery },
    responses: {
      200: { description: "The request's state", content: txStatus },
      401: problem("MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED"),
      404: problem("NOT_FOUND"),
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/base/tx",
    summary: "Send calls from a user's base wallet (deprecated)",
    description:
      "The deprecated base account type, through the same pipeline as /v1/kernel/tx; answers 200 as the original " +
      "interface did, with Deprecation and Link (successor-version) headers. Follow it with GET /v1/base/tx/{id}.",
    deprecated: true,
    security: [{ [bearer.name]: [] }],
    request: { headers: idempotencyHeader, body: { content: { "application/json": { schema: BaseTxRequestBody } } } },
    responses: { 200: { description: "Accepted and stored", content: txStatus }, ...txProblems },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/base/tx/{id}",
    summary: "Where a base-wallet transaction request stands (deprecated)",
    deprecated: true,
    security: [{ [bearer.name]: [] }],
    request: { params: z.object({ id: z.string() }), query: TxStatusQuery },
    responses: {
      200: { description: "The request's state", content: txStatus },
      401: problem("MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED"),
      404: problem("NOT_FOUND"),
    },
  });

  const ccipResponses = {
    200: { description: "The signed answer", content: { "application/json": { schema: CcipResponse } } },
    400: problem("INVALID_SENDER, INVALID_CALL_DATA, UNSUPPORTED_CALL, INVALID_NAME, UNKNOWN_RESOLVER, MALFORMED_JSON"),
    413: problem("PAYLOAD_TOO_LARGE"),
    429: problem("RATE_LIMITED (with Retry-After)"),
  };
  registry.registerPath({
    method: "get",
    path: "/ccip/{sender}/{data}.json",
    summary: "ENS CCIP-read gateway (EIP-3668), GET form",
    description: "Answers the ENS resolver's lookup for a name under the ENS domain. Served while in maintenance.",
    request: { params: z.object({ sender: z.string(), data: z.string() }) },
    responses: ccipResponses,
  });
  registry.registerPath({
    method: "post",
    path: "/ccip",
    summary: "ENS CCIP-read gateway (EIP-3668), POST form",
    request: { body: { content: { "application/json": { schema: CcipRequest } } } },
    responses: ccipResponses,
  });

  registerSafePaths(registry, bearer.name);
  registerDustPaths(registry);
  registerWebhookPaths(registry, bearer.name);

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "idwallet API",
      version: "1.0.0",
      description: "Every user id has an ERC-4337 wallet with the same address on every EVM chain.",
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  });
}
