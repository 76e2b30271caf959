import { z } from "zod";
import { chainByName } from "../chains/registry";
import { parseRate } from "./policySettings";
import { Address, ChainName, PrivateKey } from "../chains/evmSchemas";
import { CustodySettings, keySettingProblems, servesLocalChainOnly } from "./custodySettings";
import { ContractsConfig } from "./contractSettings";
import { DatabaseUrl } from "./databaseSetting";
import { OtpSettings, SmsSettings } from "./phoneLoginSettings";
import {
  ChainConnectionConfig,
  DEFAULT_MAX_CALL_BYTES,
  SafeChainsConfig,
  SafeContractsConfig,
  SecretsKeyText,
  SecretsSettings,
  flag,
  int,
  isNormalizedEnsName,
} from "./settingTypes";
import { TrustProxySetting } from "./trustProxy";
import { WebhookSettings } from "./webhookSettings";
import { ConsoleSettings } from "./consoleSettings";

/** The whole service configuration; every field documented in .env.example. */
export const ConfigSchema = z
  .object({
    host: z.string().min(1).default("127.0.0.1"),
    port: int(0, 65535).default(3000),
    workers: int(1, 64).default(1),
    /**
     * This instance's name among several on one database (the host name by default): a restarted process of the same
     * instance takes its chains' worker leases back at once, where another instance waits for them to end.
     */
    instanceId: z
      .string()
      .regex(/^[\x21-\x7e]{1,128}$/, "1 to 128 printable ASCII characters without spaces")
      .optional(),
    publicUrl: z.url().optional(),
    dataDir: z.string().min(1).default("data"),
    databasePath: z
      .string()
      .min(1)
      .refine((p) => !/^postgres(ql)?:/i.test(p), "a SQLite file; a PostgreSQL URL goes in DATABASE_URL")
      .optional(),
    /** PostgreSQL instead of the SQLite file; refused together with DATABASE_PATH (which of the two is meant?). */
    databaseUrl: DatabaseUrl.optional(),
    logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    bodyLimit: z
      .string()
      .regex(/^\d+(b|kb|mb)$/i, "a size such as 512kb or 1mb")
      .default("1mb"),
    requestTimeoutMs: int(100, 600_000).default(15_000),
    corsOrigins: z.array(z.string().min(1)).default(["*"]),
    /** Proxies whose X-Forwarded-For is believed (hop count or CIDR list); every per-IP limit keys on the result. */
    trustProxy: TrustProxySetting.default(false),
    /** Bearer token that shows GET /health's details (error messages, latencies); without it: statuses only. */
    healthAdminToken: z.string().min(32, "at least 32 characters").optional(),
    /** When set, GET /metrics answers only `Authorization: Bearer <it>` (its labels name every app and its budget). */
    metricsToken: z.string().min(32, "at least 32 characters").optional(),
    /** The operator console at /console (issue 38): off unless CONSOLE_TOKEN or CONSOLE_ENABLED is set. */
    console: ConsoleSettings,
    /** A test deployment: allows the outbox SMS provider without the local chain. */
    testDeployment: flag.default(false),
    maintenance: z
      .object({
        enabled: flag.default(false),
        retryAfterSeconds: int(1, 86_400).default(300),
        message: z.string().max(500).optional(),
      })
      .prefault({}),
    resolver: z
      .object({
        requireAuth: flag.default(false),
        maxIds: int(1, 100_000).default(1000),
        /** Requests without a bearer token per client address a minute, per process (an app's are its own to pace). */
        anonymousPerMinute: int(1, 100_000_000).default(600),
      })
      .prefault({}),
    auth: z.object({
      tokenSecret: z.string().min(32, "at least 32 characters"),
      issuer: z.string().min(1).default("idwallet"),
      audience: z.string().min(1).default("idwallet-api"),
    }),
    secrets: SecretsSettings.prefault({}),
    custody: CustodySettings,
    /**
     * AUDIT_LOG_KEY: the signature audit log's HMAC key (custody/audit/auditKey.ts); only the process that holds the
     * custody keys uses it, and a cluster's HTTP workers never get it.
     */
    auditLogKey: SecretsKeyText.optional(),
    /** POST /v1/auth requests per client id and per client address (IPv6: per /64) per minute, per process. */
    authLimits: z
      .object({
        perClientPerMinute: int(1, 100_000_000).default(30),
        perIpPerMinute: int(1, 100_000_000).default(60),
      })
      .prefault({}),
    otp: OtpSettings,
    proofs: z
      .object({
        /** The oldest `iat` of an app's identity-service JWT still taken as a user proof. */
        providerMaxAgeSeconds: int(60, 86_400).default(3600),
        /** Refuse phone-login tokens bound to no app (verifyOTP without an app bearer token, the spec's flow). */
        userTokensRequireApp: flag.default(false),
      })
      .prefault({}),
    sms: SmsSettings,
    authServer: z
      .object({
        /** Serve /functions/v1/* on its own port too ({auth_url}); unset: only on the main port. */
        port: int(0, 65535).optional(),
      })
      .prefault({}),
    contracts: ContractsConfig,
    ens: z
      .object({
        domain: z
          .string()
          .refine((d) => isNormalizedEnsName(d), "an ENSIP-15 normalized name such as idwallet.eth")
          .default("idwallet.eth"),
        resolver: Address.optional(),
        registry: Address.optional(),
        chain: ChainName.default("eth"),
        signerKeys: z.array(PrivateKey).default([]),
        ttlSeconds: int(30, 86_400).default(300),
        refreshMarginSeconds: int(0, 3600).default(60),
        rateLimitPerMinute: int(1, 100_000_000).default(1200),
        /** Answers computed and signed for one client a minute (cache misses), counted across every instance. */
        answersPerMinute: int(1, 100_000_000).default(600),
        answersPerNetworkPerMinute: int(1, 100_000_000).default(6000),
        /** What the signed-answer cache may hold, in MiB. */
        cacheMegabytes: int(1, 4096).default(32),
      })
      .refine((e) => e.refreshMarginSeconds < e.ttlSeconds, {
        message: "must be below CCIP_TTL_SECONDS",
        path: ["refreshMarginSeconds"],
      })
      .prefault({}),
    /** The hot key the owner account accepts for every wallet (OwnerAccount signer); signs for users. */
    walletSignerKey: PrivateKey.optional(),
    /** A SponsorPaymaster signer's key: approves gas sponsorship of every operation the service builds. */
    sponsorSignerKey: PrivateKey.optional(),
    /** The built-in bundler's key: sends EntryPoint.handleOps on chains without a bundler URL, and must hold gas. */
    relayerKey: PrivateKey.optional(),
    dust: z
      .object({
        /** The chain whose wallets the dust interface shows when a request names none. */
        chain: ChainName.default("eth"),
        /** Serve /api/* on its own port too ({dust_base_url}); unset: only on the main port. */
        port: int(0, 65535).optional(),
        /** Blocks searched back for a token's last Transfer of a wallet. */
        lookbackBlocks: int(1, 10_000_000).default(100_000),
        /** A Chainlink answer older than this is not used (the token shows as unsupported). */
        priceMaxAgeSeconds: int(60, 30 * 86_400).default(86_400),
        /** Multicall3; its canonical address unless a chain has it elsewhere. */
        multicall3: Address.default("0xcA11bde05977b3631167028862bE2a173976CA11"),
        /** GET /api/{address} per client address (IPv6: per /64) a minute (dust/viewLimits.ts). */
        perIpPerMinute: int(1, 100_000).default(30),
        /** GET /api/{address} chain reads per chain a second, for all clients together: bounds their RPC calls. */
        readsPerSecond: int(1, 10_000).default(10),
      })
      .prefault({}),
    safe: z
      .object({
        /** The operator's owner key, added to every Safe account the service creates. */
        operatorKey: PrivateKey.optional(),
        /** While rotating the operator: the key being replaced, which still signs for the Safes it owns. */
        previousOperatorKey: PrivateKey.optional(),
        /** Addresses for every Safe chain that has none of its own. */
        contracts: SafeContractsConfig.prefault({}),
        /** Per chain: addresses that win over the global ones, field by field. */
        chains: SafeChainsConfig.default({}),
      })
      .prefault({}),
    transactions: z
      .object({
        /** Run the transaction workers in this process (in cluster mode: in the primary). */
        worker: flag.default(true),
        /** Calls one request may carry. */
        maxCalls: int(1, 256).default(16),
        /**
         * Bytes of call data one request may carry (its `data` entries together). At most 96 KiB: a bundle
         * transaction carries about 120 KB (nodes refuse transactions over 128 KiB), and every accepted request must
         * fit one alone, with its encoding and signatures.
         */
        maxCallDataBytes: int(1, 96 * 1024).default(32 * 1024),
        /** Bytes of one call's data (each `data` entry); at most maxCallDataBytes. Unset: 32 KiB or that total. */
        maxCallBytes: int(1, 96 * 1024).optional(),
        /**
         * The most preVerificationGas one operation may need (the reference bundler's count: chiefly its call data,
         * at 16 gas a non-zero byte); a request whose operation could need more is refused at acceptance.
         */
        maxPreVerificationGas: int(100_000, 5_000_000).default(1_000_000),
        confirmations: int(1, 64).default(1),
        maxOpsPerBundle: int(1, 500).default(64),
        /**
         * Relayer transactions of the built-in bundler pending at once on a chain, at consecutive relayer nonces; 1
         * sends the next only once the one before is settled. 8: a 2-s block's worth of bundles sent one poll
         * interval (250 ms) apart, and half the 16 executable transactions per sender a geth pool keeps by default.
         */
        maxBundlesInFlight: int(1, 64).default(8),
        pollIntervalMs: int(10, 60_000).default(250),
        /**
         * How long a chain's worker lease lasts unless renewed (renewed every third of it): when an instance dies,
         * another takes its chains' work over after at most this long. Longer than any clock skew between machines.
         */
        leaseSeconds: int(2, 600).default(15),
        stuckAfterSeconds: int(1, 3600).default(60),
        feeBumpPercent: int(10, 500).default(15),
        maxAttempts: int(1, 100).default(5),
        retryDelayMs: int(0, 600_000).default(2000),
        sponsorshipTtlSeconds: int(60, 86_400).default(900),
        /** The most call gas one sponsored operation may have. */
        maxCallGas: int(100_000, 15_000_000).default(5_000_000),
        /** Longest GET /v1/kernel/tx/{id}?wait=true holds a request. */
        waitTimeoutMs: int(0, 600_000).default(10_000),
      })
      .refine((t) => t.maxCallBytes === undefined || t.maxCallBytes <= t.maxCallDataBytes, {
        message: "TX_MAX_CALL_BYTES may not exceed TX_MAX_CALL_DATA_BYTES",
        path: ["maxCallBytes"],
      })
      .transform((t) => ({
        ...t,
        maxCallBytes: t.maxCallBytes ?? Math.min(DEFAULT_MAX_CALL_BYTES, t.maxCallDataBytes),
      }))
      .prefault({}),
    /** What an app may spend and how fast, unless the operator set otherwise for it (docs/policies.md). */
    policy: z
      .object({
        /** Gas an app's requests may cost per chain per period. */
        budgetGas: z.coerce.bigint().min(1n).default(2_000_000_000n),
        periodSeconds: int(60, 31 * 86_400).default(86_400),
        /** Spending requests per app, `<n>/s` or `<n>/min`. */
        rate: z
          .string()
          .default("600/min")
          .transform(
            (text, ctx) => parseRate(text) ?? (ctx.addIssue({ code: "custom", message: "<n>/s or <n>/min" }), z.NEVER),
          ),
        /** Gas one user id's requests of an app may cost per chain per rolling day; unset: no cap. */
        userDailyCapGas: z.coerce.bigint().min(1n).optional(),
      })
      .prefault({}),
    webhooks: WebhookSettings,
    chains: z.record(z.string(), ChainConnectionConfig).default({}),
    rpcTimeoutMs: int(100, 120_000).default(5_000),
  })
  // Design §1.6: the outbox keeps every login code in a plain file, so it is for the local stack and test deployments.
  .refine(
    (c) =>
      c.sms.provider !== "outbox" ||
      c.testDeployment ||
      Object.keys(c.chains).some((name) => chainByName(name)?.type === "local"),
    {
      message:
        "the outbox provider writes login codes to a plain file; set SMS_PROVIDER=http, or TEST_DEPLOYMENT=true on a test deployment (the local stack, RPC_URL_LOCALHOST, needs neither)",
      path: ["sms", "provider"],
    },
  )
  .refine((c) => c.databaseUrl === undefined || c.databasePath === undefined, {
    message:
      "DATABASE_URL (PostgreSQL) and DATABASE_PATH (SQLite) are both set: set only the database the service uses",
    path: ["databaseUrl"],
  })
  .superRefine((c, ctx) => {
    const problems = keySettingProblems({
      custody: c.custody,
      auditLogKey: c.auditLogKey !== undefined,
      testDeployment: c.testDeployment,
      workers: c.workers,
      localOnly: servesLocalChainOnly(c.chains),
      raw: {
        walletSigner: c.walletSignerKey,
        sponsorSigner: c.sponsorSignerKey,
        relayer: c.relayerKey,
        safeOperator: c.safe.operatorKey,
        previousSafeOperator: c.safe.previousOperatorKey,
        ccipSigner: c.ens.signerKeys[0],
      },
    });
    for (const { path, message } of problems) ctx.addIssue({ code: "custom", message, path: [...path] });
  })
  .refine(
    (c) => (c.walletSignerKey ?? c.custody.walletSigner) === undefined || c.contracts.ownerAccount !== undefined,
    {
      // The API refuses calls to the owner account (CALL_NOT_ALLOWED) only if it knows where it is.
      message: "CONTRACT_OWNER_ACCOUNT is required when WALLET_SIGNER or WALLET_SIGNER_KEY is set",
      path: ["contracts", "ownerAccount"],
    },
  );

/** Configuration as parsed: frozen, passed in, never imported as a global. */
export type Config = Readonly<z.infer<typeof ConfigSchema>>;
