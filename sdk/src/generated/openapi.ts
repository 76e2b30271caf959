// Generated from the service's OpenAPI document by `npm run sdk:types`; do not edit by hand.
// A test (test/sdk/generatedTypes.test.ts) fails when this file and the live document differ.

export interface paths {
  "/v1/auth": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Get an app bearer token (OAuth 2.0 client credentials)
     * @description Form fields client_id and client_secret (or HTTP Basic), grant_type=client_credentials optional. The token is valid for 60 minutes; errors carry RFC 6749 `error` and `error_description`.
     */
    post: operations["getAppToken"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/functions/v1/signInWithOTP": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a 6-digit login code by SMS (US/Canada +1 numbers)
     * @description Part of the auth server ({auth_url}); also served on AUTH_PORT when set. The code is valid 5 minutes; every code sent in the last OTP_TTL_SECONDS works until one logs in; resends wait for a cooldown.
     */
    post: operations["signInWithOtp"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/functions/v1/verifyOTP": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Exchange the code for a user token (the `auth` proof of tel: ids)
     * @description The app's bearer token is optional (the spec's flow sends none). With it, the user token is bound to that app (`azp`): no other app may use it. A token that is sent must be valid; otherwise 401 and the code stays unused.
     */
    post: operations["verifyOtp"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/resolver": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resolve user ids to wallet addresses
     * @description Pure computation: no sign-up, no chain access. The bearer token is optional unless the operator requires it; a token that is sent must be valid. The body may be sent as application/json or as text/plain JSON text.
     */
    post: operations["resolveUserIds"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/networks": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The chains served here, the chains known and contract addresses */
    get: operations["listNetworks"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/kernel/sign": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign a hash with a user's wallet (EIP-1271; ERC-6492 before deployment)
     * @description Needs the app's bearer token and the user's proof in `auth`. The signature is over the wallet's replay-safe EIP-712 wrapping of the hash (domain: name 'idwallet Kernel', version '1', the wallet; no chain id), so it holds on every chain where the wallet is deployed, whatever `chain` names: a blank `auth` is refused even for an app in test mode (403 TEST_MODE_NOT_ALLOWED).
     */
    post: operations["signHash"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/kernel/tx": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List this app's Kernel transaction requests, newest first, page by page
     * @description Only the app's own requests (never another app's, whatever the filters or the cursor), Kernel wallets only (base-wallet requests are read by id). Filters are optional: `userId` in any spelling of it, `chain`, `status`. Follow `nextCursor` until it is null: a page reads at most 1000 requests, so with a chain or status filter a page may hold fewer than `limit`, even none, before the last.
     */
    get: operations["listKernelTransactions"];
    put?: never;
    /**
     * Send calls from a user's wallet (asynchronous, durable)
     * @description Needs the app's bearer token and the user's proof in `auth`. Entry i of `to`, `value`, `data` is call i; several calls run in order, all or nothing. The request is committed before the answer; follow it with GET /v1/kernel/tx/{id}. Gas is sponsored by the operator's paymaster.
     */
    post: operations["sendKernelTransaction"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/kernel/tx/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Where a transaction request stands
     * @description Only the app that submitted it sees it (404 otherwise). `wait=true` holds the request until it is final.
     */
    get: operations["getKernelTransaction"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/base/tx": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send calls from a user's base wallet (deprecated)
     * @deprecated
     * @description The deprecated base account type, through the same pipeline as /v1/kernel/tx; answers 200 as the original interface did, with Deprecation and Link (successor-version) headers. Follow it with GET /v1/base/tx/{id}.
     */
    post: operations["sendBaseTransaction"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/base/tx/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Where a base-wallet transaction request stands (deprecated)
     * @deprecated
     */
    get: operations["getBaseTransaction"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a 1-of-n Safe (signers + the operator)
     * @description Safe 1.5.0 through SafeProxyFactory.createProxyWithNonce: owners are the signers and the operator's key, threshold 1, the compatibility fallback handler. The address is answered at once; the deployment is a request (`txUuid`) sent by the relayer. The same signers and saltNonce give the same address (409 SAFE_EXISTS if it was created already).
     */
    post: operations["createSafe"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/accounts": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** List this app's Safes on a chain, oldest first, page by page */
    post: operations["listSafes"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account/{address}/custom": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a call from the Safe (to the Safe itself, or a delegatecall, only with the operator's grant)
     * @description Only the app that created the Safe may. The request is committed before the answer; the relayer sends it as one execTransaction signed by the operator's key, after checking it against the chain (a call that would revert ends `failed` with its reason, nothing sent). Follow it at .../tx/{txUuid}.
     */
    post: operations["sendSafeCustomCall"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account/{address}/payout/transfer": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Transfer native coin or one ERC-20
     * @description Only the app that created the Safe may. The request is committed before the answer; the relayer sends it as one execTransaction signed by the operator's key, after checking it against the chain (a call that would revert ends `failed` with its reason, nothing sent). Follow it at .../tx/{txUuid}.
     */
    post: operations["sendSafeTransfer"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account/{address}/payout/disperse": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pay many recipients native coin and ERC-20s in one Safe transaction (MultiSendCallOnly)
     * @description Only the app that created the Safe may. The request is committed before the answer; the relayer sends it as one execTransaction signed by the operator's key, after checking it against the chain (a call that would revert ends `failed` with its reason, nothing sent). Follow it at .../tx/{txUuid}.
     */
    post: operations["sendSafeDisperse"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account/{address}/payout/disperseNFT": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Transfer many ERC-721 and ERC-1155 tokens in one Safe transaction (MultiSendCallOnly)
     * @description Only the app that created the Safe may. The request is committed before the answer; the relayer sends it as one execTransaction signed by the operator's key, after checking it against the chain (a call that would revert ends `failed` with its reason, nothing sent). Follow it at .../tx/{txUuid}.
     */
    post: operations["sendSafeDisperseNft"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account/{address}/tx/{txUuid}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Where a Safe request stands */
    get: operations["getSafeTransaction"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/{chain}/account/{address}/txs": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a Safe's requests, newest first, page by page
     * @description Only the app that created the Safe may (403 SAFE_NOT_OWNED otherwise): its deployment, custom calls and payouts. `status` filters them. Follow `nextCursor` until it is null: a page reads at most 1000 requests, so with a status filter a page may hold fewer than `limit`, even none, before the last.
     */
    get: operations["listSafeTransactions"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/webhooks": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This app's webhook endpoints */
    get: operations["listWebhooks"];
    put?: never;
    /**
     * Register a webhook endpoint for this app
     * @description Events about this app's requests are POSTed to `url`, signed per Standard Webhooks with the secret in the answer (shown only here). The URL must be https to a public address: loopback, private, link-local and reserved addresses are refused unless the operator allows them (WEBHOOK_ALLOW_LOOPBACK, WEBHOOK_ALLOW_PRIVATE).
     */
    post: operations["createWebhook"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/v1/webhooks/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove one of this app's webhook endpoints
     * @description Deliveries still owed to it are dropped; one already being attempted may still arrive.
     */
    delete: operations["deleteWebhook"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/{address}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A wallet's dust: listed tokens it holds, their values and status, and its swept orders
     * @description Balances, decimals, the native balance and Chainlink feeds are read on chain in one Multicall3 call; prices come from the operator's table or Chainlink AggregatorV3 feeds. No authentication (spec §4.11).
     */
    get: operations["getDustWallet"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/all-orders": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every open and swept dust order, newest first
     * @description The answer is the spec's plain array; `limit` (default 100, at most 1000) and `offset` page it, and a full page carries `Link: <…?limit=…&offset=…>; rel="next"`.
     */
    get: operations["listDustOrders"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/orders": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The open dust orders, newest first
     * @description The answer is the spec's plain array; `limit` (default 100, at most 1000) and `offset` page it, and a full page carries `Link: <…?limit=…&offset=…>; rel="next"`.
     */
    get: operations["listOpenDustOrders"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/health": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Whether the database and each configured chain's RPC answer
     * @description Each check is bounded by RPC_TIMEOUT_MS. Anyone sees the statuses; the latencies, block numbers and error messages only with `Authorization: Bearer <HEALTH_ADMIN_TOKEN>` (any other token gets the public view, never a 401). Served during maintenance.
     */
    get: operations["getHealth"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/metrics": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Prometheus metrics
     * @description HTTP request durations by route and status, resolved ids, transactions by chain and status, the apps' gas budgets, the chain workers' leases, webhook deliveries, the process. With METRICS_TOKEN set, only for that bearer token (its labels name every app). Served during maintenance.
     */
    get: operations["getMetrics"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/ccip/{sender}/{data}.json": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * ENS CCIP-read gateway (EIP-3668), GET form
     * @description Answers the ENS resolver's lookup for a name under the ENS domain. Served while in maintenance.
     */
    get: operations["resolveCcipRead"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/ccip": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** ENS CCIP-read gateway (EIP-3668), POST form */
    post: operations["resolveCcipReadByPost"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface webhooks {
  "transaction.submitted": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The transaction.submitted event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveTransactionSubmittedEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "transaction.included": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The transaction.included event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveTransactionIncludedEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "transaction.failed": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The transaction.failed event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveTransactionFailedEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "safe.submitted": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The safe.submitted event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveSafeSubmittedEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "safe.included": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The safe.included event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveSafeIncludedEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "safe.failed": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The safe.failed event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveSafeFailedEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "webhook.test": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The webhook.test event, POSTed to each endpoint that takes it
     * @description Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` (delivery is at least once) and answer 2xx quickly.
     */
    post: operations["receiveWebhookTestEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface components {
  schemas: {
    WebhookEvent:
      | components["schemas"]["TransactionSubmittedEvent"]
      | components["schemas"]["TransactionIncludedEvent"]
      | components["schemas"]["TransactionFailedEvent"]
      | components["schemas"]["SafeSubmittedEvent"]
      | components["schemas"]["SafeIncludedEvent"]
      | components["schemas"]["SafeFailedEvent"]
      | components["schemas"]["WebhookTestEvent"];
    TransactionSubmittedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "transaction.submitted";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: components["schemas"]["TxStatus"] & {
        /** @enum {string} */
        status: "submitted";
      };
    };
    TxStatus: {
      /** @example 0b4cba7e-3f7a-4b1e-9df6-5b7c1d2e8a90 */
      id: string;
      /**
       * @description queued: accepted and durable; submitted: its UserOperation is on its way to the chain; included: on chain (see success); failed: will never be included (see error)
       * @enum {string}
       */
      status: "queued" | "submitted" | "included" | "failed";
      userId: string;
      chain: string;
      /** @description The wallet address */
      sender: string;
      userOpHash: string | null;
      /** @description The bundle transaction that included it */
      transactionHash: string | null;
      blockNumber: number | null;
      /** @description Once included: whether the calls succeeded */
      success: boolean | null;
      /** @description Why it failed, or why its calls reverted (EXECUTION_REVERTED with the reason) */
      error: {
        code: string;
        message: string;
      } | null;
      createdAt: string;
      updatedAt: string;
    };
    TransactionIncludedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "transaction.included";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: components["schemas"]["TxStatus"] & {
        /** @enum {string} */
        status: "included";
      };
    };
    TransactionFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "transaction.failed";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: components["schemas"]["TxStatus"] & {
        /** @enum {string} */
        status: "failed";
      };
    };
    SafeSubmittedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "safe.submitted";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: components["schemas"]["SafeTxStatus"] & {
        /** @enum {string} */
        status: "submitted";
      };
    };
    SafeTxStatus: {
      txUuid: string;
      /** @enum {string|null} */
      action: "create" | "custom" | "transfer" | "disperse" | "disperseNFT" | null;
      /**
       * @description queued: accepted and durable; submitted: the relayer's transaction is on its way; included: executed on chain; failed: will never execute (see error)
       * @enum {string}
       */
      status: "queued" | "submitted" | "included" | "failed";
      chain: string;
      /** @description The Safe's address */
      safe: string;
      /** @description EIP-712 hash of the Safe transaction (not for create) */
      safeTxHash: string | null;
      /** @description The relayer's transaction that executed it */
      transactionHash: string | null;
      blockNumber: number | null;
      /** @description Why it failed (the inner call's revert reason for EXECUTION_REVERTED) */
      error: {
        code: string;
        message: string;
      } | null;
      createdAt: string;
      updatedAt: string;
    };
    SafeIncludedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "safe.included";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: components["schemas"]["SafeTxStatus"] & {
        /** @enum {string} */
        status: "included";
      };
    };
    SafeFailedEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "safe.failed";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: components["schemas"]["SafeTxStatus"] & {
        /** @enum {string} */
        status: "failed";
      };
    };
    WebhookTestEvent: {
      /**
       * @description discriminator enum property added by openapi-typescript
       * @enum {string}
       */
      type: "webhook.test";
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2026-11-22T12:00:14.000Z
       */
      timestamp: string;
      data: {
        /** @description The endpoint tested */
        endpointId: string;
        /** @description This event's id, as `webhook-id` carries it */
        eventId: string;
        message: string;
      };
    };
    TokenResponse: {
      access_token: string;
      /** @enum {string} */
      token_type: "Bearer";
      /** @example 3600 */
      expires_in: number;
    };
    /**
     * @example {
     *       "type": "about:blank",
     *       "title": "Invalid request",
     *       "status": 400,
     *       "code": "INVALID_REQUEST",
     *       "detail": "The request failed validation",
     *       "errors": [
     *         {
     *           "pointer": "/userIds",
     *           "detail": "Invalid input: expected string, received undefined"
     *         }
     *       ],
     *       "instance": "/v1/resolver",
     *       "requestId": "133113b0-7291-4163-8764-d3abc3c0703f"
     *     }
     */
    Problem: {
      /** @example about:blank */
      type: string;
      title: string;
      status: number;
      /**
       * @description Stable machine-readable code
       * @example INVALID_REQUEST
       * @enum {string}
       */
      code:
        | "INVALID_REQUEST"
        | "MALFORMED_JSON"
        | "INVALID_USER_ID"
        | "TOO_MANY_USER_IDS"
        | "MISSING_TOKEN"
        | "MALFORMED_TOKEN"
        | "INVALID_TOKEN"
        | "TOKEN_EXPIRED"
        | "TOKEN_REVOKED"
        | "NOT_FOUND"
        | "METHOD_NOT_ALLOWED"
        | "PAYLOAD_TOO_LARGE"
        | "UNSUPPORTED_MEDIA_TYPE"
        | "INVALID_PHONE"
        | "INVALID_SENDER"
        | "INVALID_CALL_DATA"
        | "UNSUPPORTED_CALL"
        | "INVALID_NAME"
        | "UNKNOWN_RESOLVER"
        | "LOOKUP_TOO_LARGE"
        | "INVALID_OTP"
        | "OTP_EXPIRED"
        | "APP_DISABLED"
        | "PROOF_REQUIRED"
        | "INVALID_PROOF"
        | "PROOF_EXPIRED"
        | "PROOF_MISMATCH"
        | "PROVIDER_NOT_OWNED"
        | "PROOF_UNBOUND"
        | "PROOF_WRONG_APP"
        | "NATIVE_LOGIN_UNAVAILABLE"
        | "UNKNOWN_PROVIDER"
        | "PROVIDER_DISABLED"
        | "PROVIDER_REGISTRATION_OUTDATED"
        | "TEST_MODE_NOT_ALLOWED"
        | "OTP_COOLDOWN"
        | "RATE_LIMITED"
        | "OTP_BACKOFF"
        | "SMS_BUDGET_EXHAUSTED"
        | "SMS_DELIVERY_FAILED"
        | "RPC_UNAVAILABLE"
        | "RPC_TIMEOUT"
        | "MAINTENANCE"
        | "REQUEST_TIMEOUT"
        | "INCOMPLETE_BODY"
        | "UNSUPPORTED_ENCODING"
        | "TOO_MANY_SIGNERS"
        | "INTERNAL"
        | "UNKNOWN_CHAIN"
        | "CHAIN_NOT_AVAILABLE"
        | "SIGNER_NOT_CONFIGURED"
        | "ARRAY_LENGTH_MISMATCH"
        | "TOO_MANY_CALLS"
        | "VALUE_IN_DELEGATECALL"
        | "CALL_DATA_TOO_LARGE"
        | "IDEMPOTENCY_KEY_REUSED"
        | "CALL_NOT_ALLOWED"
        | "POLICY_DENIED"
        | "BUDGET_EXCEEDED"
        | "TX_NOT_CONFIGURED"
        | "SAFE_NOT_OWNED"
        | "SAFE_CALL_NOT_ALLOWED"
        | "SAFE_EXISTS"
        | "INVALID_CURSOR"
        | "CHAIN_READ_FAILED"
        | "STORAGE_UNAVAILABLE"
        | "SAFE_NOT_CONFIGURED"
        | "WEBHOOK_URL_NOT_ALLOWED"
        | "WEBHOOK_LIMIT_REACHED"
        | "WEBHOOKS_NOT_CONFIGURED"
        | "INVALID_CLIENT"
        | "UNSUPPORTED_GRANT_TYPE";
      detail?: string;
      instance?: string;
      requestId?: string;
      errors?: {
        pointer: string;
        detail: string;
      }[];
      /**
       * @description POST /v1/auth: the RFC 6749 error (`code` in lower case)
       * @enum {string}
       */
      error?: "invalid_request" | "invalid_client" | "unsupported_grant_type";
      /** @description POST /v1/auth: the RFC 6749 error's text */
      error_description?: string;
      /** @description CALL_NOT_ALLOWED, SAFE_CALL_NOT_ALLOWED: each refused call and why */
      calls?: {
        /** @description The call's index in to / value / data (a Safe payout: the transfer's; custom: 0) */
        index: number;
        /** @description Its target (EIP-55) */
        to: string;
        /** @enum {string} */
        reason: "SELF_CALL" | "OWNER_ACCOUNT_CALL" | "DELEGATECALL_NOT_GRANTED" | "DELEGATECALL" | "CONFIGURATION_CALL";
        /** @description SAFE_CALL_NOT_ALLOWED: the Safe configuration function the call names */
        function?: string;
      }[];
    };
    TokenRequest: {
      /** @description client_credentials (optional) */
      grant_type?: string;
      client_id?: string;
      client_secret?: string;
    };
    SignInWithOtpResponse: {
      /** @example Code sent */
      message: string;
      user: null;
      session: null;
      /** @description The SMS provider's id of the message */
      messageId: string;
    };
    SignInWithOtpRequest: {
      /**
       * @description US or Canada phone number with the +1 prefix
       * @example +14155552671
       */
      phone: string;
    };
    VerifyOtpResponse: {
      /** @description JWT naming the user id; the `auth` of transaction requests */
      access_token: string;
      /** @enum {string} */
      token_type: "Bearer";
      /**
       * @description Seconds until the token expires
       * @example 3600
       */
      expires_in: number;
      user: {
        /** @example tel:14155552671 */
        id: string;
        /** @example +14155552671 */
        phone: string;
      };
    };
    VerifyOtpRequest: {
      /**
       * @description US or Canada phone number with the +1 prefix
       * @example +14155552671
       */
      phone: string;
      /**
       * @description The 6-digit code from the SMS
       * @example 123456
       */
      token: string;
    };
    ResolverResponse: {
      /**
       * Format: date-time
       * @description When this answer was computed
       */
      updatedAt: string;
      /** @enum {string} */
      accountType: "kernel" | "base";
      users: {
        /** @description The id as sent */
        userId: string;
        /** @description The canonical form the address is derived from */
        canonicalUserId: string;
        /** @description Wallet address, the same on every chain */
        accountAddress: string;
        /**
         * @description The id's ENS name under the service's domain, resolving to its kernel wallet (whatever accountType); null when the id has none
         * @example jack-dorsey.x.idwallet.eth
         */
        ensName: string | null;
      }[];
    };
    ResolverRequest: {
      /**
       * @description User ids `<provider>:<username>` joined by `,` (spaces around ids are ignored)
       * @example github:alice,tel:15551234567
       */
      userIds: string;
      /**
       * @description Account type whose address to return; `base` is deprecated
       * @default kernel
       * @enum {string}
       */
      accountType?: "kernel" | "base";
    };
    NetworksResponse: {
      /**
       * @description Short names of the chains this deployment serves (configured, and the registry's API status live); each network's reachable says whether its RPC answered the last check
       * @example [
       *       "localhost"
       *     ]
       */
      served: string[];
      networks: {
        /**
         * @description ERC-3770 short name
         * @example matic
         */
        name: string;
        chainId: number;
        /** @enum {string} */
        type: "production" | "testnet" | "local";
        /**
         * @description The registry's status of idwallet's contracts on the chain (spec §4.7), not this deployment's
         * @enum {string}
         */
        contracts: "deployed" | "in-construction";
        /**
         * @description The registry's API status of the chain (spec §4.7), not this deployment's: see served
         * @enum {string}
         */
        api: "live" | "planned" | "none";
        /** @description Safe-account interface served on this chain */
        safe: boolean;
        /** @description This deployment has an RPC connection to the chain */
        configured: boolean;
        /** @description This deployment serves the chain: configured (its RPC answered the chain id at start-up) and api live */
        served: boolean;
        /** @description The chain's RPC answered the service's last check (its chain id at start-up, then the health checks' eth_blockNumber, re-checked in the background once the last is 10 s old); null: not configured, or not checked yet */
        reachable: boolean | null;
        /**
         * Format: date-time
         * @description When that check was; null with reachable
         */
        rpcCheckedAt: string | null;
        /** @description Only for the local development chain */
        rpcUrl?: string;
        contractAddresses: {
          [key: string]: string;
        } | null;
        /** @description Safe chains with all four Safe contracts configured; null elsewhere */
        safeContracts: {
          /** @description Safe singleton (not SafeL2) every Safe proxy delegates to */
          singleton: string;
          /** @description SafeProxyFactory that creates the Safe accounts */
          proxyFactory: string;
          /** @description CompatibilityFallbackHandler set on every Safe account */
          fallbackHandler: string;
          /** @description MultiSendCallOnly the Safe accounts batch calls through */
          multiSendCallOnly: string;
        } | null;
      }[];
      ens: {
        /**
         * @description Names are <username>.<provider>.<domain>
         * @example idwallet.eth
         */
        domain: string;
        /** @description Chain of the ENS registry */
        chain: string;
        /** @description ENS registry, when not the chain's standard one */
        registry: string | null;
        /** @description ENS resolver of the domain (IdwalletResolver) */
        resolver: string | null;
        /** @description This service answers the resolver's CCIP-read lookups */
        gateway: boolean;
      };
      /** @description Address of the operator's owner key, one owner of every Safe account on every chain; null: not set */
      safeOperator: string | null;
    };
    SignResponse: {
      /** @description Canonical user id */
      userId: string;
      accountAddress: string;
      hash: string;
      chain?: string;
      /** @description Whether the wallet has code on `chain` (null: no chain given) */
      deployed: boolean | null;
      /** @description ERC-6492-wrapped unless the wallet is deployed on `chain` */
      signature: string;
      /** @description What isValidSignature accepts wherever the wallet exists */
      erc1271Signature: string;
    };
    SignRequest: {
      /** @example tel:14155552671 */
      userId: string;
      /** @description The 32-byte hash the wallet signs for */
      hash: string;
      /**
       * @description The user proof (see Authentication)
       * @default
       */
      auth?: string;
      /** @description Chain the signature is for: if the wallet is deployed there, `signature` is the plain EIP-1271 one */
      chain?: string;
    };
    KernelTxRequest: {
      /** @example tel:14155552671 */
      userId: string;
      /** @example localhost */
      chain: string;
      /** @description Call targets, one per call */
      to: string[];
      /** @description Wei sent with each call, decimal or 0x-hex */
      value: string[];
      /** @description Call data of each call; `0x` is empty */
      data: string[];
      /**
       * @description 1: every call of the request is a DELEGATECALL from the wallet (the target's code runs on the wallet's storage and balance; value must be 0); only for an app the operator granted delegatecall, else 403 CALL_NOT_ALLOWED. 0: ordinary calls
       * @default 0
       */
      delegatecall?: 0 | 1;
      /** @description The user proof (see Authentication); blank only in test mode */
      auth: string;
    };
    TxList: {
      /** @description Newest first (requests of one millisecond by id) */
      items: components["schemas"]["TxStatus"][];
      /** @description null: no more. A page may hold fewer than `limit`, even none, and still have a nextCursor: follow it until null */
      nextCursor: string | null;
    };
    BaseTxRequest: {
      /** @example tel:14155552671 */
      userId: string;
      /** @example localhost */
      chain: string;
      /** @description Call targets, one per call */
      to: string[];
      /** @description Wei sent with each call, decimal or 0x-hex */
      value: string[];
      /** @description Call data of each call; `0x` is empty */
      data: string[];
      auth: string;
    };
    CreateSafeRequest: {
      /** @description The customer's owner keys; the operator's key is added by the service. Threshold 1 of n */
      signers: string[];
      /**
       * @description CREATE2 salt nonce; the same signers and saltNonce give the same address. Random if omitted
       * @example 1000000000000000
       */
      saltNonce?: string;
    };
    SafeList: {
      accounts: components["schemas"]["SafeAccount"][];
      nextCursor: string | null;
    };
    SafeAccount: {
      address: string;
      chain: string;
      /** @description The signers, then the operator */
      owners: string[];
      /** @enum {number} */
      threshold: 1;
      saltNonce: string;
      deployment: {
        txUuid: string;
        /**
         * @description queued: accepted and durable; submitted: the relayer's transaction is on its way; included: executed on chain; failed: will never execute (see error)
         * @enum {string}
         */
        status: "queued" | "submitted" | "included" | "failed";
        transactionHash: string | null;
      };
      createdAt: string;
    };
    ListSafesRequest: {
      /** @default 50 */
      limit?: number;
      /** @description `nextCursor` of the previous page */
      cursor?: string;
    };
    CustomSafeTxRequest: {
      to: string;
      /**
       * @description Wei sent with the call; 0 if omitted
       * @example 1000000000000000
       */
      value?: string;
      /** @default 0x */
      data?: string;
      /**
       * @description 0 CALL; 1 DELEGATECALL (the target's code runs as the Safe; value must be 0; only for an app the operator granted Safe configuration calls, else 403 SAFE_CALL_NOT_ALLOWED)
       * @default 0
       */
      operation?: 0 | 1;
    };
    SafeTransferRequest: {
      /** @description ERC-20 contract; omitted for the chain's native coin */
      token?: string;
      to: string;
      /**
       * @description In the token's smallest unit (wei for the native coin)
       * @example 1000000000000000
       */
      amount: string;
    };
    SafeDisperseRequest: {
      transfers: {
        /** @description ERC-20 contract; omitted for the chain's native coin */
        token?: string;
        to: string;
        /**
         * @description In the token's smallest unit (wei for the native coin)
         * @example 1000000000000000
         */
        amount: string;
      }[];
    };
    SafeDisperseNftRequest: {
      transfers: {
        /**
         * @default erc721
         * @enum {string}
         */
        standard?: "erc721" | "erc1155";
        token: string;
        to: string;
        /** @example 1000000000000000 */
        tokenId: string;
        /**
         * @description ERC-1155 amount; 1 (the default) for ERC-721
         * @example 1000000000000000
         */
        amount?: string;
      }[];
    };
    SafeTxList: {
      /** @description Newest first (requests of one millisecond by id) */
      items: components["schemas"]["SafeTxStatus"][];
      /** @description null: no more. A page may hold fewer than `limit`, even none, and still have a nextCursor: follow it until null */
      nextCursor: string | null;
    };
    CreatedWebhook: {
      /** @example ep_5b1f0c9e2d7a4c3b8e6f1a2d3c4b5a69 */
      id: string;
      url: string;
      /** @description Empty: every event */
      events: (
        | "transaction.submitted"
        | "transaction.included"
        | "transaction.failed"
        | "safe.submitted"
        | "safe.included"
        | "safe.failed"
      )[];
      /**
       * @description disabled: sent nothing, after a run of failed deliveries or by the operator, until re-enabled
       * @enum {string}
       */
      status: "enabled" | "disabled";
      createdAt: string;
      /**
       * @description The Standard Webhooks signing secret (`whsec_…`) for verifying `webhook-signature`; shown only in this answer
       * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
       */
      secret: string;
    };
    CreateWebhookRequest: {
      /**
       * @description Where events are POSTed: https, a public host (no credentials, no fragment); checked again at each delivery
       * @example https://example.com/idwallet-events
       */
      url: string;
      /** @description The event types sent to it; omitted or empty: every event */
      events?: (
        | "transaction.submitted"
        | "transaction.included"
        | "transaction.failed"
        | "safe.submitted"
        | "safe.included"
        | "safe.failed"
      )[];
    };
    WebhookList: {
      /** @description Oldest first */
      endpoints: components["schemas"]["WebhookEndpoint"][];
    };
    WebhookEndpoint: {
      /** @example ep_5b1f0c9e2d7a4c3b8e6f1a2d3c4b5a69 */
      id: string;
      url: string;
      /** @description Empty: every event */
      events: (
        | "transaction.submitted"
        | "transaction.included"
        | "transaction.failed"
        | "safe.submitted"
        | "safe.included"
        | "safe.failed"
      )[];
      /**
       * @description disabled: sent nothing, after a run of failed deliveries or by the operator, until re-enabled
       * @enum {string}
       */
      status: "enabled" | "disabled";
      createdAt: string;
      /** @description Why it is disabled, while it is */
      disabledReason: string | null;
      updatedAt: string;
    };
    DustWalletInformation: {
      address: string;
      portfolio: components["schemas"]["DustPortfolioItem"][];
      past_orders: components["schemas"]["DustPastOrder"][];
    };
    DustPortfolioItem: {
      token: {
        symbol: string;
        contract_address: string;
        /**
         * @description sweepable: listed and priced, no order yet; approved: the wallet has an open order for it; unsupported: not swept by the operator, or no usable price
         * @enum {string}
         */
        status: "sweepable" | "approved" | "unsupported";
      };
      balance: {
        /** @description In whole tokens */
        amount: number;
        /** @example erc20 */
        asset_type: string;
        usd_value: number;
        eth_value: number;
      };
      /** @description USD per whole token (0 without a price) */
      quote_rate: number;
      /** @description The token's last Transfer to or from the wallet within the look-back; null if none was found */
      last_transferred_at: string | null;
      /** @description What sweeping it would bring: its value if sweepable, else 0 */
      sweeping_value: {
        usd: number;
        eth: number;
      };
    };
    DustPastOrder: {
      blockNum: number;
      /** @description ISO 8601 timestamp */
      time: string;
      erc20: {
        symbol: string;
        address: string;
        amount: string;
      };
      hash: string;
      value: {
        eth: string;
        usd: number;
      };
      ethPrice: number;
    };
    DustOrder: {
      balance: string;
      symbol: string;
      maker: string;
      /** @description ISO 8601 timestamp */
      time: string;
      tx: string;
    };
    DustOpenOrder: {
      balance: string;
      /** @description [symbol, token contract address] */
      token: [string, string];
      maker: string;
      /** @description ISO 8601 timestamp */
      time: string;
      tx: string;
    };
    Health: {
      /** @enum {string} */
      status: "ok" | "degraded";
      checks: {
        database: {
          /** @enum {string} */
          status: "ok" | "failing";
          latencyMs?: number;
          /** @description Why it fails (detailed view only: it can name hosts and files) */
          detail?: string;
          /** @description The chain's latest block, when its RPC answered */
          blockNumber?: number;
        };
        /** @description Each configured chain's RPC, by chain name */
        chains: {
          [key: string]: {
            /** @enum {string} */
            status: "ok" | "failing";
            latencyMs?: number;
            /** @description Why it fails (detailed view only: it can name hosts and files) */
            detail?: string;
            /** @description The chain's latest block, when its RPC answered */
            blockNumber?: number;
          };
        };
      };
    };
    CcipResponse: {
      /** @description abi.encode(bytes result, uint64 expires, bytes signature) */
      data: string;
    };
    CcipRequest: {
      /**
       * @description The ENS resolver's address (any case)
       * @example 0x839ee6a8fd3db4557474ede4601aed96b48cb210
       */
      sender: string;
      /** @description callData of the OffchainLookup: resolve(bytes name, bytes data) */
      data: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getAppToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "grant_type": "client_credentials",
         *       "client_id": "cid_5pcj1WN3nmfEzXppShh8FY",
         *       "client_secret": "NE43qvCTM9n8jzZbac-kVctXZkDMN4KPZN0rx4voyTw"
         *     }
         */
        "application/x-www-form-urlencoded": components["schemas"]["TokenRequest"];
      };
    };
    responses: {
      /** @description A bearer token */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "access_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjaWQiOiJjaWRfNXBjajFXTjNubWZFelhwcFNoaDhGWSIsImdlbiI6MH0.sZvvCiha2o9E",
           *       "token_type": "Bearer",
           *       "expires_in": 3600
           *     }
           */
          "application/json": components["schemas"]["TokenResponse"];
        };
      };
      /** @description invalid_request, unsupported_grant_type */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description invalid_client (unknown client, wrong secret, disabled app) */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RATE_LIMITED: too many requests for this client id or from this address (Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  signInWithOtp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "phone": "+14155552671"
         *     }
         */
        "application/json": components["schemas"]["SignInWithOtpRequest"];
      };
    };
    responses: {
      /** @description Code sent */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "message": "Code sent",
           *       "user": null,
           *       "session": null,
           *       "messageId": "SM8f2b6c1e4a9d3f7b0c5e2a1d4f6b8c9e"
           *     }
           */
          "application/json": components["schemas"]["SignInWithOtpResponse"];
        };
      };
      /** @description INVALID_PHONE, INVALID_REQUEST */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description OTP_COOLDOWN, RATE_LIMITED, SMS_BUDGET_EXHAUSTED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SMS_DELIVERY_FAILED */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  verifyOtp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "phone": "+14155552671",
         *       "token": "123456"
         *     }
         */
        "application/json": components["schemas"]["VerifyOtpRequest"];
      };
    };
    responses: {
      /** @description A user token naming tel:<digits>, bound to the app when it sent its bearer token */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "access_token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWw6MTQxNTU1NTI2NzEifQ.BH6Sn1r-cS055KXN",
           *       "token_type": "Bearer",
           *       "expires_in": 3600,
           *       "user": {
           *         "id": "tel:14155552671",
           *         "phone": "+14155552671"
           *       }
           *     }
           */
          "application/json": components["schemas"]["VerifyOtpResponse"];
        };
      };
      /** @description INVALID_PHONE, INVALID_REQUEST */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description INVALID_OTP (with retryAfter after a wrong code), OTP_EXPIRED; a bearer token that was sent and does not authenticate: MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  resolveUserIds: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "userIds": "github:alice,tel:15551234567",
         *       "accountType": "kernel"
         *     }
         */
        "application/json": components["schemas"]["ResolverRequest"];
        /**
         * @example {
         *       "userIds": "github:alice,tel:15551234567",
         *       "accountType": "kernel"
         *     }
         */
        "text/plain": components["schemas"]["ResolverRequest"];
      };
    };
    responses: {
      /** @description One entry per requested id, in request order */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "updatedAt": "2026-11-22T12:00:00.000Z",
           *       "accountType": "kernel",
           *       "users": [
           *         {
           *           "userId": "github:alice",
           *           "canonicalUserId": "github:alice",
           *           "accountAddress": "0x4dee6CfcF2BDD96c7409c5DcaA251c1E3c2A6369",
           *           "ensName": "alice.github.idwallet.eth"
           *         },
           *         {
           *           "userId": "tel:15551234567",
           *           "canonicalUserId": "tel:15551234567",
           *           "accountAddress": "0x11394b6151b93B46E39F22E5052e7023B8F5B718",
           *           "ensName": "15551234567.tel.idwallet.eth"
           *         }
           *       ]
           *     }
           */
          "application/json": components["schemas"]["ResolverResponse"];
        };
      };
      /** @description INVALID_REQUEST, MALFORMED_JSON, INVALID_USER_ID (lists each bad id) or TOO_MANY_USER_IDS */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, or MISSING_TOKEN when required */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RATE_LIMITED: RESOLVER_ANONYMOUS_PER_MINUTE requests without a token (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listNetworks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The chains this deployment serves, and every chain of the registry */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "served": [
           *         "localhost"
           *       ],
           *       "networks": [
           *         {
           *           "name": "matic",
           *           "chainId": 137,
           *           "type": "production",
           *           "contracts": "deployed",
           *           "api": "live",
           *           "safe": true,
           *           "configured": false,
           *           "served": false,
           *           "reachable": null,
           *           "rpcCheckedAt": null,
           *           "contractAddresses": {
           *             "ownerAccount": "0x3a1Da83C53C515eD0C080a168CD496a614E6a3b0",
           *             "kernelFactory": "0xceC3C4092E836F57feF220c11e29690fB504a671",
           *             "baseFactory": "0xc2A0223513C809ADcc1054e29214172E7292eDf2"
           *           },
           *           "safeContracts": {
           *             "singleton": "0x29fcB43b46531BcA003ddC8FCB67FFE91900C762",
           *             "proxyFactory": "0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67",
           *             "fallbackHandler": "0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99",
           *             "multiSendCallOnly": "0x9641d764fc13c8B624c04430C7356C1C7C8102e2"
           *           }
           *         },
           *         {
           *           "name": "localhost",
           *           "chainId": 31337,
           *           "type": "local",
           *           "contracts": "deployed",
           *           "api": "live",
           *           "safe": true,
           *           "configured": true,
           *           "served": true,
           *           "reachable": true,
           *           "rpcCheckedAt": "2026-11-22T12:00:00.000Z",
           *           "rpcUrl": "http://127.0.0.1:8545",
           *           "contractAddresses": {
           *             "ownerAccount": "0x3a1Da83C53C515eD0C080a168CD496a614E6a3b0",
           *             "kernelFactory": "0xceC3C4092E836F57feF220c11e29690fB504a671",
           *             "baseFactory": "0xc2A0223513C809ADcc1054e29214172E7292eDf2"
           *           },
           *           "safeContracts": {
           *             "singleton": "0x29fcB43b46531BcA003ddC8FCB67FFE91900C762",
           *             "proxyFactory": "0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67",
           *             "fallbackHandler": "0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99",
           *             "multiSendCallOnly": "0x9641d764fc13c8B624c04430C7356C1C7C8102e2"
           *           }
           *         }
           *       ],
           *       "ens": {
           *         "domain": "idwallet.eth",
           *         "chain": "eth",
           *         "registry": null,
           *         "resolver": "0x839EE6a8Fd3Db4557474EDE4601Aed96B48cB210",
           *         "gateway": true
           *       },
           *       "safeOperator": "0xb7cF38e4B36B03895E5580abE5b379E6739e8C4C"
           *     }
           */
          "application/json": components["schemas"]["NetworksResponse"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  signHash: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "userId": "tel:14155552671",
         *       "hash": "0xabababababababababababababababababababababababababababababababab",
         *       "auth": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWw6MTQxNTU1NTI2NzEifQ.BH6Sn1r-cS055KXN"
         *     }
         */
        "application/json": components["schemas"]["SignRequest"];
      };
    };
    responses: {
      /** @description The signature */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "userId": "tel:14155552671",
           *       "accountAddress": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
           *       "hash": "0xabababababababababababababababababababababababababababababababab",
           *       "deployed": null,
           *       "signature": "0x000000000000000000000000cec3c4092e836f57fef220c11e29690fb504a671000000000000000000000000000000000000000000000000000000000000006000000000000000000000000000000000000000000000000000000000000000c00000000000000000000000000000000000000000000000000000000000000024fe8ca4af63689bd4bf337974aa2a7094f03c2cf134966cd01cba8320c9a24ade67802616000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000041bb9b2f92e36c8025f0f2d5161d502ea5853c0a3158d35e6367fe36314f5ca7ac73d40c5fd1a82772ba8e468337f81f6389133170ebdfc22b74bdb32b31ed22da1c000000000000000000000000000000000000000000000000000000000000006492649264926492649264926492649264926492649264926492649264926492",
           *       "erc1271Signature": "0xbb9b2f92e36c8025f0f2d5161d502ea5853c0a3158d35e6367fe36314f5ca7ac73d40c5fd1a82772ba8e468337f81f6389133170ebdfc22b74bdb32b31ed22da1c"
           *     }
           */
          "application/json": components["schemas"]["SignResponse"];
        };
      };
      /** @description INVALID_REQUEST, INVALID_USER_ID, NATIVE_LOGIN_UNAVAILABLE, UNKNOWN_PROVIDER, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, PROOF_REQUIRED, INVALID_PROOF, PROOF_EXPIRED, PROOF_UNBOUND */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PROOF_MISMATCH, PROOF_WRONG_APP, PROVIDER_NOT_OWNED, PROVIDER_DISABLED, PROVIDER_REGISTRATION_OUTDATED, TEST_MODE_NOT_ALLOWED (a blank auth from an app in test mode, whatever the chain) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SIGNER_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listKernelTransactions: {
    parameters: {
      query?: {
        /** @description Only this user id's requests, in any spelling of it */
        userId?: string;
        /** @description Only requests on this chain */
        chain?: string;
        /** @description Requests a page holds at most */
        limit?: number;
        /** @description `nextCursor` of the page before, with the same filters; omitted for the first page */
        cursor?: string;
        /** @description Only requests in this state */
        status?: "queued" | "submitted" | "included" | "failed";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of requests */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "items": [
           *         {
           *           "id": "ea79f62a-4352-4ec0-9186-d67878176f8f",
           *           "status": "included",
           *           "userId": "tel:14155552671",
           *           "chain": "localhost",
           *           "sender": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
           *           "userOpHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
           *           "transactionHash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *           "blockNumber": 1842,
           *           "success": true,
           *           "error": null,
           *           "createdAt": "2026-11-22T12:00:00.000Z",
           *           "updatedAt": "2026-11-22T12:00:14.000Z"
           *         }
           *       ],
           *       "nextCursor": null
           *     }
           */
          "application/json": components["schemas"]["TxList"];
        };
      };
      /** @description INVALID_REQUEST (a parameter out of range, or unknown), INVALID_USER_ID, UNKNOWN_CHAIN, INVALID_CURSOR (not a nextCursor this listing gave out, with the same filters, to this app) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  sendKernelTransaction: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request's record (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "userId": "tel:14155552671",
         *       "chain": "localhost",
         *       "to": [
         *         "0x000000000000000000000000000000000000dEaD"
         *       ],
         *       "value": [
         *         "1000000000000000"
         *       ],
         *       "data": [
         *         "0x"
         *       ],
         *       "auth": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWw6MTQxNTU1NTI2NzEifQ.BH6Sn1r-cS055KXN"
         *     }
         */
        "application/json": components["schemas"]["KernelTxRequest"];
      };
    };
    responses: {
      /** @description Accepted and stored (Location: the status URL) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "ea79f62a-4352-4ec0-9186-d67878176f8f",
           *       "status": "queued",
           *       "userId": "tel:14155552671",
           *       "chain": "localhost",
           *       "sender": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
           *       "userOpHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "success": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["TxStatus"];
        };
      };
      /** @description INVALID_REQUEST, ARRAY_LENGTH_MISMATCH, TOO_MANY_CALLS, VALUE_IN_DELEGATECALL, INVALID_USER_ID, NATIVE_LOGIN_UNAVAILABLE, UNKNOWN_PROVIDER, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, PROOF_REQUIRED, INVALID_PROOF, PROOF_EXPIRED, PROOF_UNBOUND */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PROOF_MISMATCH, PROOF_WRONG_APP, PROVIDER_NOT_OWNED, PROVIDER_DISABLED, PROVIDER_REGISTRATION_OUTDATED, TEST_MODE_NOT_ALLOWED, CALL_NOT_ALLOWED (a call to the wallet itself or the owner account, or a delegatecall the app was not granted; `calls` lists each with its reason: SELF_CALL, OWNER_ACCOUNT_CALL, DELEGATECALL_NOT_GRANTED), POLICY_DENIED (`rule`: chains, targets, maxValue or userDailyCap) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED (the app's gas budget on the chain: remainingGas, requestGas, freesAt, Retry-After), RATE_LIMITED (the app's request rate, with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: on a chain that charges an L1 data fee, its fee oracle could not be read to reserve the fee from the budget */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, TX_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getKernelTransaction: {
    parameters: {
      query?: {
        /** @description true: hold the request until the transaction is final or the wait limit passes */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The request's state */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "ea79f62a-4352-4ec0-9186-d67878176f8f",
           *       "status": "included",
           *       "userId": "tel:14155552671",
           *       "chain": "localhost",
           *       "sender": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
           *       "userOpHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
           *       "transactionHash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *       "blockNumber": 1842,
           *       "success": true,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:14.000Z"
           *     }
           */
          "application/json": components["schemas"]["TxStatus"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  sendBaseTransaction: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request's record (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "userId": "tel:14155552671",
         *       "chain": "localhost",
         *       "to": [
         *         "0x000000000000000000000000000000000000dEaD"
         *       ],
         *       "value": [
         *         "1000000000000000"
         *       ],
         *       "data": [
         *         "0x"
         *       ],
         *       "auth": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWw6MTQxNTU1NTI2NzEifQ.BH6Sn1r-cS055KXN"
         *     }
         */
        "application/json": components["schemas"]["BaseTxRequest"];
      };
    };
    responses: {
      /** @description Accepted and stored */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "2b39efb6-2945-4ced-a116-ae65a5f52659",
           *       "status": "queued",
           *       "userId": "tel:14155552671",
           *       "chain": "localhost",
           *       "sender": "0xaA0f209193805C56A0ce6818E8e76Fb2dbE9D02A",
           *       "userOpHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "success": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["TxStatus"];
        };
      };
      /** @description INVALID_REQUEST, ARRAY_LENGTH_MISMATCH, TOO_MANY_CALLS, VALUE_IN_DELEGATECALL, INVALID_USER_ID, NATIVE_LOGIN_UNAVAILABLE, UNKNOWN_PROVIDER, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, PROOF_REQUIRED, INVALID_PROOF, PROOF_EXPIRED, PROOF_UNBOUND */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PROOF_MISMATCH, PROOF_WRONG_APP, PROVIDER_NOT_OWNED, PROVIDER_DISABLED, PROVIDER_REGISTRATION_OUTDATED, TEST_MODE_NOT_ALLOWED, CALL_NOT_ALLOWED (a call to the wallet itself or the owner account, or a delegatecall the app was not granted; `calls` lists each with its reason: SELF_CALL, OWNER_ACCOUNT_CALL, DELEGATECALL_NOT_GRANTED), POLICY_DENIED (`rule`: chains, targets, maxValue or userDailyCap) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED (the app's gas budget on the chain: remainingGas, requestGas, freesAt, Retry-After), RATE_LIMITED (the app's request rate, with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: on a chain that charges an L1 data fee, its fee oracle could not be read to reserve the fee from the budget */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, TX_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getBaseTransaction: {
    parameters: {
      query?: {
        /** @description true: hold the request until the transaction is final or the wait limit passes */
        wait?: boolean;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The request's state */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "2b39efb6-2945-4ced-a116-ae65a5f52659",
           *       "status": "queued",
           *       "userId": "tel:14155552671",
           *       "chain": "localhost",
           *       "sender": "0xaA0f209193805C56A0ce6818E8e76Fb2dbE9D02A",
           *       "userOpHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "success": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["TxStatus"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  createSafe: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path: {
        chain: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "signers": [
         *         "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
         *       ],
         *       "saltNonce": "1"
         *     }
         */
        "application/json": components["schemas"]["CreateSafeRequest"];
      };
    };
    responses: {
      /** @description The Safe and its deployment request */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "address": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *       "chain": "localhost",
           *       "owners": [
           *         "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
           *         "0xb7cF38e4B36B03895E5580abE5b379E6739e8C4C"
           *       ],
           *       "threshold": 1,
           *       "saltNonce": "1",
           *       "deployment": {
           *         "txUuid": "64507268-7129-449f-bff5-9eceedb0f96a",
           *         "status": "queued",
           *         "transactionHash": null
           *       },
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "txUuid": "64507268-7129-449f-bff5-9eceedb0f96a",
           *       "status": "queued"
           *     }
           */
          "application/json": {
            address: string;
            chain: string;
            /** @description The signers, then the operator */
            owners: string[];
            /** @enum {number} */
            threshold: 1;
            saltNonce: string;
            deployment: {
              txUuid: string;
              /**
               * @description queued: accepted and durable; submitted: the relayer's transaction is on its way; included: executed on chain; failed: will never execute (see error)
               * @enum {string}
               */
              status: "queued" | "submitted" | "included" | "failed";
              transactionHash: string | null;
            };
            createdAt: string;
            txUuid: string;
            status: string;
          };
        };
      };
      /** @description INVALID_REQUEST, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain), VALUE_IN_DELEGATECALL */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description POLICY_DENIED (rule chains) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_EXISTS, IDEMPOTENCY_KEY_REUSED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: the chain's L1 data fee oracle could not be read */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listSafes: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        chain: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "limit": 50
         *     }
         */
        "application/json": components["schemas"]["ListSafesRequest"];
      };
    };
    responses: {
      /** @description A page of Safes */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "accounts": [
           *         {
           *           "address": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *           "chain": "localhost",
           *           "owners": [
           *             "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
           *             "0xb7cF38e4B36B03895E5580abE5b379E6739e8C4C"
           *           ],
           *           "threshold": 1,
           *           "saltNonce": "1",
           *           "deployment": {
           *             "txUuid": "64507268-7129-449f-bff5-9eceedb0f96a",
           *             "status": "queued",
           *             "transactionHash": null
           *           },
           *           "createdAt": "2026-11-22T12:00:00.000Z"
           *         }
           *       ],
           *       "nextCursor": null
           *     }
           */
          "application/json": components["schemas"]["SafeList"];
        };
      };
      /** @description INVALID_REQUEST, INVALID_CURSOR, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  sendSafeCustomCall: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path: {
        chain: string;
        /** @description The Safe's address */
        address: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "to": "0x581490710c739667044636454E7D284063E902bf",
         *       "value": "0",
         *       "data": "0x095ea7b3000000000000000000000000000000000000000000000000000000000000dead00000000000000000000000000000000000000000000000000000000000003e8",
         *       "operation": 0
         *     }
         */
        "application/json": components["schemas"]["CustomSafeTxRequest"];
      };
    };
    responses: {
      /** @description Accepted and stored (Location: the status URL) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "txUuid": "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
           *       "action": "custom",
           *       "status": "queued",
           *       "chain": "localhost",
           *       "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *       "safeTxHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["SafeTxStatus"];
        };
      };
      /** @description INVALID_REQUEST, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain), VALUE_IN_DELEGATECALL */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_OWNED, SAFE_CALL_NOT_ALLOWED (a call to the Safe itself, a delegatecall or a Safe configuration call, without the operator's grant; `calls` says which and why), POLICY_DENIED (rule chains; for custom also targets, maxValue) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND: no Safe at this address was created through this service */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description IDEMPOTENCY_KEY_REUSED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: the chain's L1 data fee oracle could not be read */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  sendSafeTransfer: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path: {
        chain: string;
        /** @description The Safe's address */
        address: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "to": "0x000000000000000000000000000000000000dEaD",
         *       "amount": "1000000000000000000"
         *     }
         */
        "application/json": components["schemas"]["SafeTransferRequest"];
      };
    };
    responses: {
      /** @description Accepted and stored (Location: the status URL) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "txUuid": "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
           *       "action": "transfer",
           *       "status": "queued",
           *       "chain": "localhost",
           *       "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *       "safeTxHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["SafeTxStatus"];
        };
      };
      /** @description INVALID_REQUEST, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain), VALUE_IN_DELEGATECALL */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_OWNED, SAFE_CALL_NOT_ALLOWED (a call to the Safe itself, a delegatecall or a Safe configuration call, without the operator's grant; `calls` says which and why), POLICY_DENIED (rule chains; for custom also targets, maxValue) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND: no Safe at this address was created through this service */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description IDEMPOTENCY_KEY_REUSED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: the chain's L1 data fee oracle could not be read */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  sendSafeDisperse: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path: {
        chain: string;
        /** @description The Safe's address */
        address: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "transfers": [
         *         {
         *           "to": "0x000000000000000000000000000000000000dEaD",
         *           "amount": "1000000000000000000"
         *         },
         *         {
         *           "token": "0x581490710c739667044636454E7D284063E902bf",
         *           "to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
         *           "amount": "40000000000000000000"
         *         }
         *       ]
         *     }
         */
        "application/json": components["schemas"]["SafeDisperseRequest"];
      };
    };
    responses: {
      /** @description Accepted and stored (Location: the status URL) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "txUuid": "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
           *       "action": "disperse",
           *       "status": "queued",
           *       "chain": "localhost",
           *       "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *       "safeTxHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["SafeTxStatus"];
        };
      };
      /** @description INVALID_REQUEST, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain), VALUE_IN_DELEGATECALL */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_OWNED, SAFE_CALL_NOT_ALLOWED (a call to the Safe itself, a delegatecall or a Safe configuration call, without the operator's grant; `calls` says which and why), POLICY_DENIED (rule chains; for custom also targets, maxValue) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND: no Safe at this address was created through this service */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description IDEMPOTENCY_KEY_REUSED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: the chain's L1 data fee oracle could not be read */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  sendSafeDisperseNft: {
    parameters: {
      query?: never;
      header?: {
        /** @description Retries with the same key return the first request (scoped to the app) */
        "Idempotency-Key"?: string;
      };
      path: {
        chain: string;
        /** @description The Safe's address */
        address: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "transfers": [
         *         {
         *           "standard": "erc721",
         *           "token": "0x581490710c739667044636454E7D284063E902bf",
         *           "to": "0x000000000000000000000000000000000000dEaD",
         *           "tokenId": "7"
         *         },
         *         {
         *           "standard": "erc1155",
         *           "token": "0x581490710c739667044636454E7D284063E902bf",
         *           "to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
         *           "tokenId": "3",
         *           "amount": "10"
         *         }
         *       ]
         *     }
         */
        "application/json": components["schemas"]["SafeDisperseNftRequest"];
      };
    };
    responses: {
      /** @description Accepted and stored (Location: the status URL) */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "txUuid": "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
           *       "action": "disperseNFT",
           *       "status": "queued",
           *       "chain": "localhost",
           *       "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *       "safeTxHash": null,
           *       "transactionHash": null,
           *       "blockNumber": null,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:00.000Z"
           *     }
           */
          "application/json": components["schemas"]["SafeTxStatus"];
        };
      };
      /** @description INVALID_REQUEST, UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain), VALUE_IN_DELEGATECALL */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_OWNED, SAFE_CALL_NOT_ALLOWED (a call to the Safe itself, a delegatecall or a Safe configuration call, without the operator's grant; `calls` says which and why), POLICY_DENIED (rule chains; for custom also targets, maxValue) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND: no Safe at this address was created through this service */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description IDEMPOTENCY_KEY_REUSED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description BUDGET_EXCEEDED, RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED: the chain's L1 data fee oracle could not be read */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT (as for 502) */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getSafeTransaction: {
    parameters: {
      query?: {
        /** @description true: hold the request until the transaction is final or the wait limit passes */
        wait?: boolean;
      };
      header?: never;
      path: {
        chain: string;
        /** @description The Safe's address */
        address: string;
        txUuid: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The request's state */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "txUuid": "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
           *       "action": "transfer",
           *       "status": "included",
           *       "chain": "localhost",
           *       "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *       "safeTxHash": "0x1f6d3b5a7c9e0f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a",
           *       "transactionHash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *       "blockNumber": 1843,
           *       "error": null,
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "updatedAt": "2026-11-22T12:00:14.000Z"
           *     }
           */
          "application/json": components["schemas"]["SafeTxStatus"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_OWNED */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listSafeTransactions: {
    parameters: {
      query?: {
        /** @description Requests a page holds at most */
        limit?: number;
        /** @description `nextCursor` of the page before, with the same filters; omitted for the first page */
        cursor?: string;
        /** @description Only requests in this state */
        status?: "queued" | "submitted" | "included" | "failed";
      };
      header?: never;
      path: {
        chain: string;
        /** @description The Safe's address */
        address: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of the Safe's requests */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "items": [
           *         {
           *           "txUuid": "3f43562c-42b1-43a6-a34d-a1c3b2eeea5b",
           *           "action": "transfer",
           *           "status": "included",
           *           "chain": "localhost",
           *           "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
           *           "safeTxHash": "0x1f6d3b5a7c9e0f2a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a",
           *           "transactionHash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *           "blockNumber": 1843,
           *           "error": null,
           *           "createdAt": "2026-11-22T12:00:00.000Z",
           *           "updatedAt": "2026-11-22T12:00:14.000Z"
           *         }
           *       ],
           *       "nextCursor": null
           *     }
           */
          "application/json": components["schemas"]["SafeTxList"];
        };
      };
      /** @description INVALID_REQUEST (a parameter out of range, or unknown; an address that is none), INVALID_CURSOR (not a nextCursor this listing gave out, with the same filter, to this app), UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE (not a Safe chain) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_OWNED */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND: no Safe at this address was created through this service */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description SAFE_NOT_CONFIGURED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listWebhooks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Oldest first; no secrets */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "endpoints": [
           *         {
           *           "id": "ep_bb4c79ec9fa73144d9528f5c0f0e3cfd",
           *           "url": "https://example.com/idwallet-events",
           *           "events": [
           *             "transaction.included",
           *             "transaction.failed"
           *           ],
           *           "status": "enabled",
           *           "createdAt": "2026-11-22T12:00:00.000Z",
           *           "disabledReason": null,
           *           "updatedAt": "2026-11-22T12:00:00.000Z"
           *         }
           *       ]
           *     }
           */
          "application/json": components["schemas"]["WebhookList"];
        };
      };
      /** @description MISSING_TOKEN, MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  createWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "url": "https://example.com/idwallet-events",
         *       "events": [
         *         "transaction.included",
         *         "transaction.failed"
         *       ]
         *     }
         */
        "application/json": components["schemas"]["CreateWebhookRequest"];
      };
    };
    responses: {
      /** @description Registered (Location: /v1/webhooks/{id}) */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "id": "ep_bb4c79ec9fa73144d9528f5c0f0e3cfd",
           *       "url": "https://example.com/idwallet-events",
           *       "events": [
           *         "transaction.included",
           *         "transaction.failed"
           *       ],
           *       "status": "enabled",
           *       "createdAt": "2026-11-22T12:00:00.000Z",
           *       "secret": "whsec_iMPT38WJ+EDtklSgB8bX/VTgvmbYsHRv4dbM4WygK3g="
           *     }
           */
          "application/json": components["schemas"]["CreatedWebhook"];
        };
      };
      /** @description INVALID_REQUEST (unknown fields or event types), WEBHOOK_URL_NOT_ALLOWED (`errors` says why) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description WEBHOOK_LIMIT_REACHED: the app has WEBHOOK_MAX_ENDPOINTS_PER_APP endpoints (`limit`) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description UNSUPPORTED_MEDIA_TYPE: a body in another media type, or one without Content-Type (send application/json) */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE, WEBHOOKS_NOT_CONFIGURED (no SECRETS_KEY to seal the secret with) */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  deleteWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description INVALID_REQUEST */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MISSING_TOKEN, MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description NOT_FOUND: no endpoint of this app has this id */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description MAINTENANCE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getDustWallet: {
    parameters: {
      query?: {
        /** @description The chain to read (ERC-3770 short name); DUST_CHAIN if omitted */
        chain?: string;
      };
      header?: never;
      path: {
        address: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The wallet's information (spec §2.8) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "address": "0x1111111111111111111111111111111111111111",
           *       "portfolio": [
           *         {
           *           "token": {
           *             "symbol": "DEMO",
           *             "contract_address": "0x581490710c739667044636454E7D284063E902bf",
           *             "status": "sweepable"
           *           },
           *           "balance": {
           *             "amount": 40,
           *             "asset_type": "erc20",
           *             "usd_value": 20,
           *             "eth_value": 0.006666666666666667
           *           },
           *           "quote_rate": 0.5,
           *           "last_transferred_at": "2026-11-23T10:00:00.000Z",
           *           "sweeping_value": {
           *             "usd": 20,
           *             "eth": 0.006666666666666667
           *           }
           *         }
           *       ],
           *       "past_orders": [
           *         {
           *           "blockNum": 77,
           *           "time": "2026-11-20T09:30:00.000Z",
           *           "erc20": {
           *             "symbol": "DEMO",
           *             "address": "0x581490710c739667044636454E7D284063E902bf",
           *             "amount": "3"
           *           },
           *           "hash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *           "value": {
           *             "eth": "0.0005",
           *             "usd": 1.5
           *           },
           *           "ethPrice": 3000
           *         }
           *       ]
           *     }
           */
          "application/json": components["schemas"]["DustWalletInformation"];
        };
      };
      /** @description INVALID_REQUEST (not an address), UNKNOWN_CHAIN, CHAIN_NOT_AVAILABLE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RATE_LIMITED (with Retry-After): DUST_PER_IP_PER_MINUTE views from this address, or DUST_READS_PER_SECOND of the chain's */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_UNAVAILABLE, CHAIN_READ_FAILED */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RPC_TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listDustOrders: {
    parameters: {
      query?: {
        limit?: number;
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Orders (spec §2.8) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "balance": "3",
           *         "maker": "0x1111111111111111111111111111111111111111",
           *         "time": "2026-11-22T12:00:00.000Z",
           *         "tx": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *         "symbol": "DEMO"
           *       }
           *     ]
           */
          "application/json": components["schemas"]["DustOrder"][];
        };
      };
      /** @description INVALID_REQUEST */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  listOpenDustOrders: {
    parameters: {
      query?: {
        limit?: number;
        offset?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Open orders (spec §2.8) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example [
           *       {
           *         "balance": "3",
           *         "maker": "0x1111111111111111111111111111111111111111",
           *         "time": "2026-11-22T12:00:00.000Z",
           *         "tx": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
           *         "token": [
           *           "DEMO",
           *           "0x581490710c739667044636454E7D284063E902bf"
           *         ]
           *       }
           *     ]
           */
          "application/json": components["schemas"]["DustOpenOrder"][];
        };
      };
      /** @description INVALID_REQUEST */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  getHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every dependency answers */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "ok",
           *       "checks": {
           *         "database": {
           *           "status": "ok"
           *         },
           *         "chains": {
           *           "localhost": {
           *             "status": "ok"
           *           }
           *         }
           *       }
           *     }
           */
          "application/json": components["schemas"]["Health"];
        };
      };
      /** @description A dependency fails (the same report, `degraded`) */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "status": "degraded",
           *       "checks": {
           *         "database": {
           *           "status": "ok",
           *           "latencyMs": 1
           *         },
           *         "chains": {
           *           "localhost": {
           *             "status": "failing",
           *             "latencyMs": 2000,
           *             "detail": "no answer within 2000 ms"
           *           }
           *         }
           *       }
           *     }
           */
          "application/json": components["schemas"]["Health"];
        };
      };
    };
  };
  getMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Prometheus text format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example # HELP idwallet_resolved_user_ids_total User ids resolved to wallet addresses
           *     # TYPE idwallet_resolved_user_ids_total counter
           *     idwallet_resolved_user_ids_total 2
           */
          "text/plain": string;
        };
      };
      /** @description INVALID_TOKEN: METRICS_TOKEN is set and was not sent */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  resolveCcipRead: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sender: string;
        data: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The signed answer */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "data": "0x0000000000000000000000000000000000000000000000000000000000000060000000000000000000000000000000000000000000000000000000006b02da6c00000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000200000000000000000000000004dee6cfcf2bdd96c7409c5dcaa251c1e3c2a6369000000000000000000000000000000000000000000000000000000000000004191f681beb2daaec305414b190fe4e7ef8b3cbe75f77d35b54cab338d9e14ad2840c9a3419655f70eba6dd85702a520d3838e7ae166cfcbda2d53aeef2e6e54521b00000000000000000000000000000000000000000000000000000000000000"
           *     }
           */
          "application/json": components["schemas"]["CcipResponse"];
        };
      };
      /** @description INVALID_SENDER, INVALID_CALL_DATA, UNSUPPORTED_CALL, INVALID_NAME, UNKNOWN_RESOLVER, LOOKUP_TOO_LARGE, MALFORMED_JSON */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  resolveCcipReadByPost: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "sender": "0x839ee6a8fd3db4557474ede4601aed96b48cb210",
         *       "data": "0x9061b92300000000000000000000000000000000000000000000000000000000000000400000000000000000000000000000000000000000000000000000000000000080000000000000000000000000000000000000000000000000000000000000001b05616c6963650667697468756208696477616c6c65740365746800000000000000000000000000000000000000000000000000000000000000000000000000243b3b57de6c43b033d7ee3aad81b17cce343b96c99baf83be5f8474de35026b79feb5508000000000000000000000000000000000000000000000000000000000"
         *     }
         */
        "application/json": components["schemas"]["CcipRequest"];
      };
    };
    responses: {
      /** @description The signed answer */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          /**
           * @example {
           *       "data": "0x0000000000000000000000000000000000000000000000000000000000000060000000000000000000000000000000000000000000000000000000006b02da6c00000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000200000000000000000000000004dee6cfcf2bdd96c7409c5dcaa251c1e3c2a6369000000000000000000000000000000000000000000000000000000000000004191f681beb2daaec305414b190fe4e7ef8b3cbe75f77d35b54cab338d9e14ad2840c9a3419655f70eba6dd85702a520d3838e7ae166cfcbda2d53aeef2e6e54521b00000000000000000000000000000000000000000000000000000000000000"
           *     }
           */
          "application/json": components["schemas"]["CcipResponse"];
        };
      };
      /** @description INVALID_SENDER, INVALID_CALL_DATA, UNSUPPORTED_CALL, INVALID_NAME, UNKNOWN_RESOLVER, LOOKUP_TOO_LARGE, MALFORMED_JSON */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
      /** @description RATE_LIMITED (with Retry-After) */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/problem+json": components["schemas"]["Problem"];
        };
      };
    };
  };
  receiveTransactionSubmittedEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "transaction.submitted",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "id": "ea79f62a-4352-4ec0-9186-d67878176f8f",
         *         "userId": "tel:14155552671",
         *         "chain": "localhost",
         *         "sender": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
         *         "userOpHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
         *         "createdAt": "2026-11-22T12:00:00.000Z",
         *         "updatedAt": "2026-11-22T12:00:14.000Z",
         *         "status": "submitted",
         *         "transactionHash": null,
         *         "blockNumber": null,
         *         "success": null,
         *         "error": null
         *       }
         *     }
         */
        "application/json": components["schemas"]["TransactionSubmittedEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  receiveTransactionIncludedEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "transaction.included",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "id": "ea79f62a-4352-4ec0-9186-d67878176f8f",
         *         "userId": "tel:14155552671",
         *         "chain": "localhost",
         *         "sender": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
         *         "userOpHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
         *         "createdAt": "2026-11-22T12:00:00.000Z",
         *         "updatedAt": "2026-11-22T12:00:14.000Z",
         *         "status": "included",
         *         "transactionHash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
         *         "blockNumber": 1842,
         *         "success": true,
         *         "error": null
         *       }
         *     }
         */
        "application/json": components["schemas"]["TransactionIncludedEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  receiveTransactionFailedEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "transaction.failed",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "id": "ea79f62a-4352-4ec0-9186-d67878176f8f",
         *         "userId": "tel:14155552671",
         *         "chain": "localhost",
         *         "sender": "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
         *         "userOpHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
         *         "createdAt": "2026-11-22T12:00:00.000Z",
         *         "updatedAt": "2026-11-22T12:00:14.000Z",
         *         "status": "failed",
         *         "transactionHash": null,
         *         "blockNumber": null,
         *         "success": null,
         *         "error": {
         *           "code": "RESERVATION_EXCEEDED",
         *           "message": "its gas limits could cost more than it reserved"
         *         }
         *       }
         *     }
         */
        "application/json": components["schemas"]["TransactionFailedEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  receiveSafeSubmittedEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "safe.submitted",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "txUuid": "0c1e5d2a-7b3f-4e9a-8c6d-2f1b0a9e8d7c",
         *         "action": "transfer",
         *         "chain": "localhost",
         *         "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
         *         "safeTxHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
         *         "createdAt": "2026-11-22T12:00:00.000Z",
         *         "updatedAt": "2026-11-22T12:00:14.000Z",
         *         "status": "submitted",
         *         "transactionHash": null,
         *         "blockNumber": null,
         *         "error": null
         *       }
         *     }
         */
        "application/json": components["schemas"]["SafeSubmittedEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  receiveSafeIncludedEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "safe.included",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "txUuid": "0c1e5d2a-7b3f-4e9a-8c6d-2f1b0a9e8d7c",
         *         "action": "transfer",
         *         "chain": "localhost",
         *         "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
         *         "safeTxHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
         *         "createdAt": "2026-11-22T12:00:00.000Z",
         *         "updatedAt": "2026-11-22T12:00:14.000Z",
         *         "status": "included",
         *         "transactionHash": "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
         *         "blockNumber": 1842,
         *         "error": null
         *       }
         *     }
         */
        "application/json": components["schemas"]["SafeIncludedEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  receiveSafeFailedEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "safe.failed",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "txUuid": "0c1e5d2a-7b3f-4e9a-8c6d-2f1b0a9e8d7c",
         *         "action": "transfer",
         *         "chain": "localhost",
         *         "safe": "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
         *         "safeTxHash": "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
         *         "createdAt": "2026-11-22T12:00:00.000Z",
         *         "updatedAt": "2026-11-22T12:00:14.000Z",
         *         "status": "failed",
         *         "transactionHash": null,
         *         "blockNumber": null,
         *         "error": {
         *           "code": "RESERVATION_EXCEEDED",
         *           "message": "its gas limits could cost more than it reserved"
         *         }
         *       }
         *     }
         */
        "application/json": components["schemas"]["SafeFailedEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  receiveWebhookTestEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The event's id, the same on every attempt: deduplicate on it */
        "webhook-id": string;
        /** @description This attempt's time, Unix seconds: refuse one far from now (a replay) */
        "webhook-timestamp": number;
        /** @description `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; during a secret's rotation, one per secret, space-separated */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "type": "webhook.test",
         *       "timestamp": "2026-11-22T12:00:14.000Z",
         *       "data": {
         *         "endpointId": "ep_bb4c79ec9fa73144d9528f5c0f0e3cfd",
         *         "eventId": "msg_4f0c3a9be2d14c7f8a6b5e1d0c9f2a3b",
         *         "message": "A test event from idwallet"
         *       }
         *     }
         */
        "application/json": components["schemas"]["WebhookTestEvent"];
      };
    };
    responses: {
      /** @description Delivered. Any other answer, a redirect (never followed), an error or no answer within WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}
