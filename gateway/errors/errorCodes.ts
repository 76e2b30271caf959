/**
 * Every stable `code` of a problem answer, with its HTTP status and when it is answered: the one list the Errors
 * table of docs/api.md is checked against (a test fails if they differ) and the robustness suites take as the known
 * codes. `status` null: never an answer's code, only a failed request's `error.code`. POST /v1/auth's RFC 6749 errors
 * are listed apart (OAUTH_ERRORS).
 */
export const ERROR_CODES = [
  { code: "INVALID_REQUEST", status: 400, when: "the body fails validation (`errors` lists the fields)" },
  { code: "MALFORMED_JSON", status: 400, when: "the body is not JSON" },
  { code: "INVALID_USER_ID", status: 400, when: "one or more user ids are invalid (`invalidUserIds`)" },
  { code: "TOO_MANY_USER_IDS", status: 400, when: "more ids than `RESOLVER_MAX_IDS`" },
  { code: "MISSING_TOKEN", status: 401, when: "no bearer token where one is needed (with `WWW-Authenticate`)" },
  { code: "MALFORMED_TOKEN", status: 401, when: "a bearer token that is not a token (with `WWW-Authenticate`)" },
  { code: "INVALID_TOKEN", status: 401, when: "a bearer token that does not verify (with `WWW-Authenticate`)" },
  { code: "TOKEN_EXPIRED", status: 401, when: "an expired bearer token (with `WWW-Authenticate`)" },
  { code: "TOKEN_REVOKED", status: 401, when: "a bearer token issued before the app's secret was rotated" },
  { code: "NOT_FOUND", status: 404, when: "no such route, or a transaction id this app did not submit" },
  {
    code: "METHOD_NOT_ALLOWED",
    status: 405,
    when: "a method the path does not take, e.g. GET on a POST route (`Allow` lists those it takes)",
  },
  { code: "PAYLOAD_TOO_LARGE", status: 413, when: "body over `BODY_LIMIT`" },
  { code: "UNSUPPORTED_MEDIA_TYPE", status: 415, when: "a body in another media type" },
  { code: "INVALID_PHONE", status: 400, when: "not a valid US/Canada +1 number" },
  { code: "INVALID_SENDER", status: 400, when: "a CCIP-read lookup whose sender is not an address" },
  { code: "INVALID_CALL_DATA", status: 400, when: "a CCIP-read lookup whose data does not decode" },
  { code: "UNSUPPORTED_CALL", status: 400, when: "a CCIP-read lookup that is not resolve(bytes,bytes)" },
  { code: "INVALID_NAME", status: 400, when: "a CCIP-read lookup of a malformed DNS-encoded name" },
  { code: "UNKNOWN_RESOLVER", status: 400, when: "a CCIP-read lookup from a resolver this gateway does not answer" },
  {
    code: "LOOKUP_TOO_LARGE",
    status: 400,
    when: "a CCIP-read lookup over 16 KiB of call data or 64 records in a multicall",
  },
  { code: "INVALID_OTP", status: 401, when: "phone login: a wrong code" },
  { code: "OTP_EXPIRED", status: 401, when: "phone login: the code expired" },
  { code: "APP_DISABLED", status: 401, when: "a disabled app's token" },
  { code: "PROOF_REQUIRED", status: 401, when: "a wallet action without the `auth` proof" },
  { code: "INVALID_PROOF", status: 401, when: "an `auth` proof that does not verify" },
  { code: "PROOF_EXPIRED", status: 401, when: "an expired `auth` proof" },
  { code: "PROOF_MISMATCH", status: 403, when: "an `auth` proof of another user id" },
  { code: "PROVIDER_NOT_OWNED", status: 403, when: "an `auth` proof for a provider another app registered" },
  {
    code: "PROOF_UNBOUND",
    status: 401,
    when: "a phone token bound to no app (`USER_TOKENS_REQUIRE_APP`)",
  },
  { code: "PROOF_WRONG_APP", status: 403, when: "a phone token bound to another app" },
  { code: "NATIVE_LOGIN_UNAVAILABLE", status: 400, when: "no login exists yet for that provider" },
  {
    code: "UNKNOWN_PROVIDER",
    status: 400,
    when: "a provider neither built-in nor registered (`invalidUserIds`)",
  },
  {
    code: "PROVIDER_DISABLED",
    status: 403,
    when: "a wallet action for an id of a removed provider (`providers remove`)",
  },
  {
    code: "PROVIDER_REGISTRATION_OUTDATED",
    status: 403,
    when: "a proof for a provider registered without issuer and audience, or a plain-http key set",
  },
  {
    code: "TEST_MODE_NOT_ALLOWED",
    status: 403,
    when: "blank `auth` (test mode) for a transaction on a production chain, or for any signature",
  },
  {
    code: "OTP_COOLDOWN",
    status: 429,
    when: "a code was sent to this phone too recently and still works (with `Retry-After`)",
  },
  { code: "RATE_LIMITED", status: 429, when: "too many requests (with `Retry-After`)" },
  {
    code: "OTP_BACKOFF",
    status: 429,
    when: "a wrong code was tried for this phone moments ago; retry after `Retry-After`",
  },
  {
    code: "SMS_BUDGET_EXHAUSTED",
    status: 429,
    when: "the service sent `OTP_SMS_PER_HOUR` SMS in the last hour, or all but the reserve kept for networks' first codes (with `Retry-After`)",
  },
  { code: "SMS_DELIVERY_FAILED", status: 502, when: "the SMS provider refused or timed out" },
  { code: "RPC_UNAVAILABLE", status: 502, when: "a chain's RPC is down" },
  { code: "RPC_TIMEOUT", status: 504, when: "a chain's RPC is slow" },
  { code: "MAINTENANCE", status: 503, when: "maintenance mode (with `Retry-After`)" },
  {
    code: "REQUEST_TIMEOUT",
    status: 503,
    when: "not committed within `REQUEST_TIMEOUT_MS`: it did not take effect and never will",
  },
  {
    code: "INCOMPLETE_BODY",
    status: 408,
    when: "the body announced by `Content-Length` did not arrive in time; the request never takes effect",
  },
  { code: "UNSUPPORTED_ENCODING", status: 400, when: "a body in a Content-Encoding or character set not read here" },
  { code: "TOO_MANY_SIGNERS", status: 400, when: "a Safe with more than 20 owners" },
  { code: "INTERNAL", status: 500, when: "anything unexpected; no internals are returned, the log has them" },
  { code: "UNKNOWN_CHAIN", status: 400, when: "a chain not in the registry" },
  { code: "CHAIN_NOT_AVAILABLE", status: 400, when: "a chain not served by this deployment" },
  { code: "SIGNER_NOT_CONFIGURED", status: 503, when: "no `WALLET_SIGNER` key" },
  {
    code: "ARRAY_LENGTH_MISMATCH",
    status: 400,
    when: "a transaction request whose `to`, `value`, `data` differ in length",
  },
  { code: "TOO_MANY_CALLS", status: 400, when: "a transaction request of more calls than `TX_MAX_CALLS`" },
  { code: "VALUE_IN_DELEGATECALL", status: 400, when: "a delegatecall that sends value" },
  {
    code: "CALL_DATA_TOO_LARGE",
    status: 400,
    when: "a request over a size bound; `limit` names which (POST /v1/kernel/tx)",
  },
  { code: "IDEMPOTENCY_KEY_REUSED", status: 409, when: "an `Idempotency-Key` sent again with another request" },
  { code: "CALL_NOT_ALLOWED", status: 403, when: "a call that could take the wallet over (`calls` says which, why)" },
  {
    code: "POLICY_DENIED",
    status: 403,
    when: "the app's policy refuses the request (`rule`: `chains`, `targets`, `maxValue`, `userDailyCap`)",
  },
  {
    code: "BUDGET_EXCEEDED",
    status: 429,
    when: "the app's gas budget on that chain is spent for the period (`remainingGas`, `freesAt`, `Retry-After`)",
  },
  { code: "TX_NOT_CONFIGURED", status: 503, when: "no signing keys, relayer key or bundler for that chain" },
  { code: "SAFE_NOT_OWNED", status: 403, when: "another app's Safe" },
  {
    code: "SAFE_CALL_NOT_ALLOWED",
    status: 403,
    when: "a Safe call that could change its owners, modules, guards or handler, ungranted (`calls` says which, why)",
  },
  { code: "SAFE_EXISTS", status: 409, when: "a Safe with these owners and saltNonce exists already" },
  { code: "INVALID_CURSOR", status: 400, when: "a list cursor this service did not give out" },
  { code: "CHAIN_READ_FAILED", status: 502, when: "the chain answered, but not as a contract read expects" },
  {
    code: "STORAGE_UNAVAILABLE",
    status: 503,
    when: "the database refused: read-only, disk full, locked (`Retry-After`)",
  },
  { code: "SAFE_NOT_CONFIGURED", status: 503, when: "no Safe contracts, operator key or relayer for that chain" },
  {
    code: "WEBHOOK_URL_NOT_ALLOWED",
    status: 400,
    when: "a webhook URL that is not https to a public address (`errors` points at `/url` and says why)",
  },
  {
    code: "WEBHOOK_LIMIT_REACHED",
    status: 409,
    when: "the app has `WEBHOOK_MAX_ENDPOINTS_PER_APP` webhook endpoints already (`limit`)",
  },
  { code: "WEBHOOKS_NOT_CONFIGURED", status: 503, when: "no `SECRETS_KEY` to seal a webhook signing secret with" },
  {
    code: "RESERVATION_EXCEEDED",
    status: null,
    when: "not answered: a failed request's `error.code`: its operation's gas limits could cost more than it reserved",
  },
  {
    code: "BUDGET_EXHAUSTED_BY_RETRIES",
    status: null,
    when: "not answered: a failed request's `error.code`: a Safe request whose sends burned its whole reservation",
  },
  {
    code: "WALLET_NOT_CUSTODIAL",
    status: null,
    when: "not answered: a failed request's `error.code`: its wallet is not held by the operator's owner account",
  },
  {
    code: "BUNDLER_UNAVAILABLE",
    status: null,
    when: "not answered: a failed request's `error.code`: the chain's external bundler took none of its sends",
  },
] as const satisfies readonly { readonly code: string; readonly status: number | null; readonly when: string }[];

/**
 * The RFC 6749 §5.2 errors POST /v1/auth answers in `error` (docs/auth.md, not the Errors table): the problem's `code`
 * is the same, upper case.
 */
export const OAUTH_ERRORS = ["invalid_request", "invalid_client", "unsupported_grant_type"] as const;

/** One of the RFC 6749 errors of POST /v1/auth, as its `error` says it. */
export type OAuthErrorName = (typeof OAUTH_ERRORS)[number];

/**
 * One of the service's problem codes: a code of ERROR_CODES, or an OAuth error's upper case. The type of every
 * `ApiError`'s code, so a throw site or an OpenAPI description naming a code that is not listed fails to typecheck.
 */
export type ErrorCode = (typeof ERROR_CODES)[number]["code"] | Uppercase<OAuthErrorName>;
