import { readFileSync } from "node:fs";
import path from "node:path";
import { CHAINS } from "../chains/registry";
import { type Config, ConfigSchema } from "./schema";
import { CONSOLE_ENV_PATHS } from "./consoleSettings";

/** Start-up refused: names each missing or bad setting by its environment variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Readonly<Record<string, string | undefined>>;

/** Suffix of a chain's own settings (`RPC_URL_<suffix>`): its short name upper case, `-` as `_`. */
const chainEnvSuffix = (chain: string): string => chain.toUpperCase().replace(/-/g, "_");

/** Environment variable → path in the configuration object (lists are comma-separated). */
const ENV_PATHS: ReadonlyArray<readonly [string, readonly string[], "list"?]> = [
  ["HOST", ["host"]],
  ["PORT", ["port"]],
  ["WORKERS", ["workers"]],
  ["PUBLIC_URL", ["publicUrl"]],
  ["DATA_DIR", ["dataDir"]],
  ["DATABASE_PATH", ["databasePath"]],
  ["DATABASE_URL", ["databaseUrl"]],
  ["LOG_LEVEL", ["logLevel"]],
  ["INSTANCE_ID", ["instanceId"]],
  ["BODY_LIMIT", ["bodyLimit"]],
  ["REQUEST_TIMEOUT_MS", ["requestTimeoutMs"]],
  ["CORS_ORIGINS", ["corsOrigins"], "list"],
  ["TRUST_PROXY", ["trustProxy"]],
  ["TEST_DEPLOYMENT", ["testDeployment"]],
  ["HEALTH_ADMIN_TOKEN", ["healthAdminToken"]],
  ["METRICS_TOKEN", ["metricsToken"]],
  ...CONSOLE_ENV_PATHS,
  ["MAINTENANCE", ["maintenance", "enabled"]],
  ["MAINTENANCE_RETRY_AFTER", ["maintenance", "retryAfterSeconds"]],
  ["MAINTENANCE_MESSAGE", ["maintenance", "message"]],
  ["RESOLVER_REQUIRE_AUTH", ["resolver", "requireAuth"]],
  ["RESOLVER_MAX_IDS", ["resolver", "maxIds"]],
  ["RESOLVER_ANONYMOUS_PER_MINUTE", ["resolver", "anonymousPerMinute"]],
  ["AUTH_TOKEN_SECRET", ["auth", "tokenSecret"]],
  ["AUTH_ISSUER", ["auth", "issuer"]],
  ["AUTH_AUDIENCE", ["auth", "audience"]],
  ["SECRETS_KEY", ["secrets", "key"]],
  ["SECRETS_KEY_PREVIOUS", ["secrets", "previousKey"]],
  ["AUDIT_LOG_KEY", ["auditLogKey"]],
  ["AUTH_PER_CLIENT_PER_MINUTE", ["authLimits", "perClientPerMinute"]],
  ["AUTH_PER_IP_PER_MINUTE", ["authLimits", "perIpPerMinute"]],
  ["OTP_TTL_SECONDS", ["otp", "ttlSeconds"]],
  ["OTP_BACKOFF_BASE_SECONDS", ["otp", "backoffBaseSeconds"]],
  ["OTP_BACKOFF_MAX_SECONDS", ["otp", "backoffMaxSeconds"]],
  ["OTP_RESEND_COOLDOWN_SECONDS", ["otp", "resendCooldownSeconds"]],
  ["OTP_RESEND_COOLDOWN_MAX_SECONDS", ["otp", "resendCooldownMaxSeconds"]],
  ["OTP_PER_IP_PER_HOUR", ["otp", "perIpPerHour"]],
  ["OTP_PER_NETWORK_PER_HOUR", ["otp", "perNetworkPerHour"]],
  ["OTP_VERIFY_PER_IP_PER_HOUR", ["otp", "verifyPerIpPerHour"]],
  ["OTP_VERIFY_PER_APP_PER_HOUR", ["otp", "verifyPerAppPerHour"]],
  ["OTP_SMS_PER_HOUR", ["otp", "smsPerHour"]],
  ["OTP_SMS_RESERVED_PER_HOUR", ["otp", "smsReservedPerHour"]],
  ["OTP_SMS_RESERVE_PER_NETWORK", ["otp", "smsReservePerNetwork"]],
  ["OTP_HMAC_SECRET", ["otp", "hmacSecret"]],
  ["USER_TOKEN_TTL_SECONDS", ["otp", "userTokenTtlSeconds"]],
  ["USER_TOKENS_REQUIRE_APP", ["proofs", "userTokensRequireApp"]],
  ["PROVIDER_PROOF_MAX_AGE_SECONDS", ["proofs", "providerMaxAgeSeconds"]],
  ["SMS_PROVIDER", ["sms", "provider"]],
  ["SMS_OUTBOX_PATH", ["sms", "outboxPath"]],
  ["SMS_HTTP_URL", ["sms", "httpUrl"]],
  ["SMS_ACCOUNT_SID", ["sms", "accountSid"]],
  ["SMS_AUTH_TOKEN", ["sms", "authToken"]],
  ["SMS_FROM", ["sms", "from"]],
  ["AUTH_PORT", ["authServer", "port"]],
  ["DUST_CHAIN", ["dust", "chain"]],
  ["DUST_PORT", ["dust", "port"]],
  ["DUST_LOOKBACK_BLOCKS", ["dust", "lookbackBlocks"]],
  ["DUST_PRICE_MAX_AGE_SECONDS", ["dust", "priceMaxAgeSeconds"]],
  ["CONTRACT_MULTICALL3", ["dust", "multicall3"]],
  ["DUST_PER_IP_PER_MINUTE", ["dust", "perIpPerMinute"]],
  ["DUST_READS_PER_SECOND", ["dust", "readsPerSecond"]],
  ["CONTRACT_ENTRY_POINT", ["contracts", "entryPoint"]],
  ["CONTRACT_OWNER_ACCOUNT", ["contracts", "ownerAccount"]],
  ["CONTRACT_KERNEL_FACTORY", ["contracts", "kernelFactory"]],
  ["CONTRACT_BASE_FACTORY", ["contracts", "baseFactory"]],
  ["CONTRACT_SPONSOR_PAYMASTER", ["contracts", "sponsorPaymaster"]],
  ["CONTRACT_CUSTODY_PAYMASTER", ["contracts", "custodyPaymaster"]],
  ["CONTRACT_KERNEL_CREATOR", ["contracts", "kernelCreator"]],
  ["CONTRACT_WALLET_IMPLEMENTATIONS", ["contracts", "walletImplementations"], "list"],
  ["CONTRACT_ENS_RESOLVER", ["contracts", "ensResolver"]],
  ["RPC_TIMEOUT_MS", ["rpcTimeoutMs"]],
  ["WALLET_SIGNER_KEY", ["walletSignerKey"]],
  ["SPONSOR_SIGNER_KEY", ["sponsorSignerKey"]],
  ["RELAYER_SIGNER_KEY", ["relayerKey"]],
  ["SAFE_OPERATOR_SIGNER_KEY", ["safe", "operatorKey"]],
  ["SAFE_OPERATOR_PREVIOUS_SIGNER_KEY", ["safe", "previousOperatorKey"]],
  ["WALLET_SIGNER", ["custody", "walletSigner"]],
  ["SPONSOR_SIGNER", ["custody", "sponsorSigner"]],
  ["RELAYER_SIGNER", ["custody", "relayer"]],
  ["SAFE_OPERATOR_SIGNER", ["custody", "safeOperator"]],
  ["SAFE_OPERATOR_PREVIOUS_SIGNER", ["custody", "previousSafeOperator"]],
  ["CCIP_SIGNER", ["custody", "ccipSigner"]],
  ["PKCS11_MODULE", ["custody", "pkcs11Module"]],
  ["RAW_KEYS_ALLOWED", ["custody", "rawKeysAllowed"]],
  ["CONTRACT_SAFE_SINGLETON", ["safe", "contracts", "singleton"]],
  ["CONTRACT_SAFE_PROXY_FACTORY", ["safe", "contracts", "proxyFactory"]],
  ["CONTRACT_SAFE_FALLBACK_HANDLER", ["safe", "contracts", "fallbackHandler"]],
  ["CONTRACT_SAFE_MULTISEND_CALL_ONLY", ["safe", "contracts", "multiSendCallOnly"]],
  ["TX_WORKER", ["transactions", "worker"]],
  ["TX_MAX_CALLS", ["transactions", "maxCalls"]],
  ["TX_MAX_CALL_DATA_BYTES", ["transactions", "maxCallDataBytes"]],
  ["TX_MAX_CALL_BYTES", ["transactions", "maxCallBytes"]],
  ["TX_MAX_PRE_VERIFICATION_GAS", ["transactions", "maxPreVerificationGas"]],
  ["TX_CONFIRMATIONS", ["transactions", "confirmations"]],
  ["TX_MAX_OPS_PER_BUNDLE", ["transactions", "maxOpsPerBundle"]],
  ["TX_MAX_BUNDLES_IN_FLIGHT", ["transactions", "maxBundlesInFlight"]],
  ["TX_POLL_INTERVAL_MS", ["transactions", "pollIntervalMs"]],
  ["TX_LEASE_SECONDS", ["transactions", "leaseSeconds"]],
  ["TX_STUCK_AFTER_SECONDS", ["transactions", "stuckAfterSeconds"]],
  ["TX_FEE_BUMP_PERCENT", ["transactions", "feeBumpPercent"]],
  ["TX_MAX_ATTEMPTS", ["transactions", "maxAttempts"]],
  ["TX_RETRY_DELAY_MS", ["transactions", "retryDelayMs"]],
  ["TX_SPONSORSHIP_TTL_SECONDS", ["transactions", "sponsorshipTtlSeconds"]],
  ["TX_MAX_CALL_GAS", ["transactions", "maxCallGas"]],
  ["POLICY_DEFAULT_BUDGET_GAS", ["policy", "budgetGas"]],
  ["POLICY_DEFAULT_PERIOD_SECONDS", ["policy", "periodSeconds"]],
  ["POLICY_DEFAULT_RATE", ["policy", "rate"]],
  ["POLICY_DEFAULT_USER_DAILY_CAP_GAS", ["policy", "userDailyCapGas"]],
  ["TX_WAIT_TIMEOUT_MS", ["transactions", "waitTimeoutMs"]],
  ["WEBHOOK_WORKER", ["webhooks", "worker"]],
  ["WEBHOOK_ALLOW_LOOPBACK", ["webhooks", "allowLoopback"]],
  ["WEBHOOK_ALLOW_PRIVATE", ["webhooks", "allowPrivate"]],
  ["WEBHOOK_TIMEOUT_MS", ["webhooks", "timeoutMs"]],
  ["WEBHOOK_RETRY_SECONDS", ["webhooks", "retrySeconds"], "list"],
  ["WEBHOOK_DNS_SERVERS", ["webhooks", "dnsServers"], "list"],
  ["WEBHOOK_DISABLE_AFTER_FAILURES", ["webhooks", "disableAfterFailures"]],
  ["WEBHOOK_DISABLE_AFTER_SECONDS", ["webhooks", "disableAfterSeconds"]],
  ["WEBHOOK_MAX_ENDPOINTS_PER_APP", ["webhooks", "maxEndpointsPerApp"]],
  ["WEBHOOK_SECRET_OVERLAP_SECONDS", ["webhooks", "secretOverlapSeconds"]],
  ["WEBHOOK_POLL_MS", ["webhooks", "pollMs"]],
  ["WEBHOOK_RETENTION_DAYS", ["webhooks", "retentionDays"]],
  ["WEBHOOK_CONCURRENCY", ["webhooks", "concurrency"]],
  ["WEBHOOK_ENDPOINT_CONCURRENCY", ["webhooks", "endpointConcurrency"]],
  ["WEBHOOK_APP_CONCURRENCY", ["webhooks", "appConcurrency"]],
  ["ENS_DOMAIN", ["ens", "domain"]],
  ["ENS_RESOLVER", ["ens", "resolver"]],
  ["ENS_REGISTRY", ["ens", "registry"]],
  ["ENS_CHAIN", ["ens", "chain"]],
  ["CCIP_SIGNER_KEYS", ["ens", "signerKeys"], "list"],
  ["CCIP_TTL_SECONDS", ["ens", "ttlSeconds"]],
  ["CCIP_REFRESH_MARGIN_SECONDS", ["ens", "refreshMarginSeconds"]],
  ["CCIP_RATE_LIMIT_PER_MINUTE", ["ens", "rateLimitPerMinute"]],
  ["CCIP_ANSWERS_PER_MINUTE", ["ens", "answersPerMinute"]],
  ["CCIP_ANSWERS_PER_NETWORK_PER_MINUTE", ["ens", "answersPerNetworkPerMinute"]],
  ["CCIP_CACHE_MB", ["ens", "cacheMegabytes"]],
  ...CHAINS.flatMap((c) => {
    const suffix = chainEnvSuffix(c.name);
    const connection = [
      [`RPC_URL_${suffix}`, ["chains", c.name, "rpcUrl"]],
      [`BUNDLER_URL_${suffix}`, ["chains", c.name, "bundlerUrl"]],
      [`BUNDLER_MAX_PENDING_${suffix}`, ["chains", c.name, "bundlerMaxPending"]],
      [`EXPLORER_URL_${suffix}`, ["chains", c.name, "explorerUrl"]],
    ] as const;
    // Safe contracts of one Safe chain, winning over the global CONTRACT_SAFE_* field by field.
    const safe = [
      [`CONTRACT_SAFE_SINGLETON_${suffix}`, ["safe", "chains", c.name, "singleton"]],
      [`CONTRACT_SAFE_PROXY_FACTORY_${suffix}`, ["safe", "chains", c.name, "proxyFactory"]],
      [`CONTRACT_SAFE_FALLBACK_HANDLER_${suffix}`, ["safe", "chains", c.name, "fallbackHandler"]],
      [`CONTRACT_SAFE_MULTISEND_CALL_ONLY_${suffix}`, ["safe", "chains", c.name, "multiSendCallOnly"]],
    ] as const;
    return c.safe ? [...connection, ...safe] : connection;
  }),
];

/** Every environment variable the service reads (each chain's own included): what docs and tests may name. */
export const SETTING_NAMES: readonly string[] = ENV_PATHS.map(([name]) => name);

/** The variable that sets `issuePath`, or the longest one that sets a prefix of it (list items). */
export const envNameOf = (issuePath: readonly PropertyKey[]): string => {
  for (let length = issuePath.length; length > 0; length--) {
    const key = issuePath.slice(0, length).join(".");
    const match = ENV_PATHS.find(([, p]) => p.join(".") === key);
    if (match) return length === issuePath.length ? match[0] : `${match[0]} (item ${String(issuePath[length])})`;
  }
  return issuePath.join(".");
};

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node = (node[key] ??= {}) as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`CONFIG_FILE ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Only the position: V8's message quotes the text around it, which may be a key or a PIN.
    const position = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw new ConfigError(
      `CONFIG_FILE ${file}: not valid JSON${position === undefined ? "" : ` (at position ${position})`}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`CONFIG_FILE ${file}: not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * Settings renamed since an earlier release: the old name and the new one. A raw key is named after its key's
 * reference setting (`<REFERENCE>_KEY`), so each key has one name in the docs.
 */
export const RENAMED_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ["CONTRACT_OFFCHAIN_RESOLVER", "CONTRACT_ENS_RESOLVER"],
  ["RELAYER_KEY", "RELAYER_SIGNER_KEY"],
  ["SAFE_OPERATOR_KEY", "SAFE_OPERATOR_SIGNER_KEY"],
  ["SAFE_OPERATOR_PREVIOUS_KEY", "SAFE_OPERATOR_PREVIOUS_SIGNER_KEY"],
];
/** Settings that no longer exist, and what took their place. */
const RETIRED: ReadonlyArray<readonly [string, string]> = [
  [
    "OTP_PER_PHONE_PER_HOUR",
    "a number's codes are spaced by OTP_RESEND_COOLDOWN_SECONDS, doubling up to OTP_RESEND_COOLDOWN_MAX_SECONDS (docs/auth.md)",
  ],
];

/**
 * The configuration as given, before validation: the JSON file CONFIG_FILE (same shape as Config) overlaid with the
 * environment variables, then with `overrides`. The service (loadConfig) and the admin CLI both read it, so they read
 * their settings alike. Throws ConfigError for an unreadable file or a renamed or retired setting.
 */
export function configInputOf(env: Env, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [old, now] of RENAMED_SETTINGS) {
    // Refused, not ignored: an operator's setting must not silently stop meaning anything.
    if (env[old] !== undefined && env[old] !== "") throw new ConfigError(`${old} is now called ${now}; rename it`);
  }
  for (const [old, instead] of RETIRED) {
    if (env[old] !== undefined && env[old] !== "")
      throw new ConfigError(`${old} no longer exists: ${instead}; remove it`);
  }
  const raw: Record<string, unknown> = env.CONFIG_FILE ? readConfigFile(env.CONFIG_FILE) : {};
  for (const [name, keys, kind] of ENV_PATHS) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    setPath(raw, keys, kind === "list" ? value.split(",").map((s) => s.trim()) : value);
  }
  return deepMerge(raw, overrides);
}

/**
 * Builds the configuration from configInputOf (CONFIG_FILE overlaid with environment variables and `overrides`),
 * validated once. Throws ConfigError naming every bad setting.
 */
export function loadConfig(env: Env, overrides: Record<string, unknown> = {}): Config {
  // Sections with required settings start empty, so a missing setting is reported by its own name.
  const merged = deepMerge({ auth: {}, contracts: {} }, configInputOf(env, overrides));
  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    const lines = result.error.issues.map(
      (i) => `  ${envNameOf(i.path)}: ${/received undefined$/.test(i.message) ? "required, not set" : i.message}`,
    );
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  const config = result.data;
  // SQLite under DATA_DIR unless DATABASE_URL names a PostgreSQL database.
  if (config.databaseUrl === undefined) config.databasePath ??= path.join(config.dataDir, "idwallet.sqlite");
  config.sms.outboxPath ??= path.join(config.dataDir, "sms-outbox.jsonl");
  return deepFreeze(config);
}

function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : value;
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export type { Config };
