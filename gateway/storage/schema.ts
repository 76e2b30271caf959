/**
 * Kysely table interfaces: the shape of each table as SQLite stores it (snake_case columns, ISO-8601 text timestamps,
 * 0/1 integers for booleans). Only `storage/sql/` and the migrations use these types; everything else sees the domain
 * types of the repository interfaces (the console's tables: `consoleTables.ts`).
 */
import type { ColumnType } from "kysely";
import type { SpendScope } from "../transactions/spendWindow";
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from "./webhookTables";
import type { ConsoleTables } from "./consoleTables";

/** `apps`: one API client (OAuth 2.0 client credentials, design §5); only a hash of the secret is kept. */
export interface AppsTable {
  id: string;
  name: string;
  client_id: string;
  /** `hmac-sha256$<base64url>` (older rows: `scrypt$N$r$p$salt$hash`, rewritten on use), never the secret (design §1.6). */
  secret_hash: string;
  status: "active" | "disabled";
  test_mode: 0 | 1;
  /** 1: the operator granted `delegatecall: 1` requests (migration 007); 0 for every app until then. */
  delegatecall_granted: 0 | 1;
  /** 1: the operator granted Safe calls that can change a Safe's configuration (migration 021); 0 until then. */
  safe_config_granted: 0 | 1;
  /** The operator's budget and policy settings (JSON, migration 008); null: the defaults. */
  policy: string | null;
  created_at: string;
  updated_at: string;
  secret_rotated_at: string;
  /** Raised by every secret rotation; app tokens of an earlier generation are refused (migration 013). */
  secret_generation: number;
}

/** `settings`: service-wide switches (e.g. `maintenance`), each a JSON document under its key. */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

/** `otp_codes`: one phone login code (spec §4.5); only its HMAC is kept (design §1.6). */
export interface OtpCodesTable {
  id: string;
  /** E.164 digits without "+", e.g. `14155552671`. */
  phone: string;
  /** Hex HMAC-SHA256 of the phone and the code, never the code itself. */
  code_hash: string;
  created_at: string;
  expires_at: string;
  /** Wrong codes tried against this one, and against the phone's earlier codes it carries forward (backoff). */
  attempts: number;
  /** When the latest of those wrong codes was tried; null if none. */
  last_failed_at: string | null;
  /** 1 once it can no longer be used: verified (or another code of the phone was), or its SMS failed. */
  used: 0 | 1;
  /** The code's place among the phone's codes in issue order (codes issued in one millisecond share created_at). */
  seq: number;
}

/** A provider name an app owns, with how its proofs are verified (JSON). */
export interface AppProvidersTable {
  provider: string;
  app_id: string;
  verification: string;
  created_at: string;
  /** Set by `providers remove`: the name stays the app's, its ids cannot act. */
  disabled_at: string | null;
}

/** `transactions`: one accepted wallet transaction request (spec §4.3) and its UserOperation's lifecycle. */
export interface TransactionsTable {
  id: string;
  app_id: string;
  account_type: "kernel" | "base" | "safe";
  /** Canonical user id; empty for a Safe request (a Safe belongs to an app, not to a user id). */
  user_id: string;
  chain: string;
  /** The wallet address. */
  sender: string;
  /** JSON array of {to, value (decimal), data}. */
  calls: string;
  delegatecall: 0 | 1;
  status: "queued" | "submitted" | "included" | "failed";
  idempotency_key: string | null;
  request_hash: string;
  /** JSON of the signed UserOperation last built, recorded before it is sent. */
  user_op: string | null;
  user_op_hash: string | null;
  bundle_id: string | null;
  transaction_hash: string | null;
  block_number: number | null;
  success: 0 | 1 | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  updated_at: string;
  /** Safe requests only: create, custom, transfer, disperse or disperseNFT. */
  safe_action: "create" | "custom" | "transfer" | "disperse" | "disperseNFT" | null;
  /** The Safe transaction's EIP-712 hash and nonce, once built (not for create). */
  safe_tx_hash: string | null;
  safe_nonce: number | null;
  /** Gas reserved at acceptance: the most the request can cost the operator (migration 008). */
  reserved_gas: number;
  /** Gas it did cost, once final (null before): counted instead of `reserved_gas` from then on. */
  settled_gas: number | null;
  /** Gas of the mined relayer transactions sent for it alone so far, reverted ones too (migration 009). */
  spent_gas: number;
}

/** `app_rate_windows`: how many spending requests an app made in one fixed window (shared by every process). */
export interface AppRateWindowsTable {
  app_id: string;
  /** ISO-8601 start of the window. */
  window_start: string;
  count: number;
}

/** `limit_counters`: one limit's hits by one key (an address, a network, a client id, an app) in its current window. */
export interface LimitCountersTable {
  /** Which limit, e.g. `otp.request.ip`. */
  rule: string;
  key: string;
  count: number;
  /** ISO-8601 end of the window; the next hit after it starts a new one. */
  expires_at: string;
}

/** `safes`: a Safe account an app created (spec §4.10), with the exact call that deploys it. */
export interface SafesTable {
  chain: string;
  address: string;
  app_id: string;
  /** JSON array of owner addresses (the operator's included); threshold 1. */
  owners: string;
  /** Decimal. */
  salt_nonce: string;
  singleton: string;
  proxy_factory: string;
  fallback_handler: string;
  deployment_tx_id: string;
  created_at: string;
}

/** `bundles`: one relayer transaction calling EntryPoint.handleOps, with every fee-bumped version sent. */
export interface BundlesTable {
  id: string;
  chain: string;
  relayer: string;
  nonce: number;
  /** JSON array of every version's hash, oldest first. */
  tx_hashes: string;
  /** The newest signed version, rebroadcast after a restart. */
  raw_tx: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  status: "pending" | "mined" | "dropped";
  mined_tx_hash: string | null;
  block_number: number | null;
  created_at: string;
  updated_at: string;
  sent_at: string;
  /** Gas it burned if it was a wallet bundle that reverted as a whole, charged to no request (migration 009). */
  reverted_gas: number | null;
}

/** `dust_tokens`: a chain's token list of the dust interface. */
export interface DustTokensTable {
  chain: string;
  address: string;
  symbol: string;
  decimals: number;
  listing: "sweepable" | "unsupported";
  created_at: string;
}

/** `dust_prices`: where an asset's USD price comes from (a fixed price or a Chainlink feed). */
export interface DustPricesTable {
  chain: string;
  /** Token contract, or `native`. */
  asset: string;
  usd: string | null;
  feed: string | null;
  updated_at: string;
}

/** `dust_orders`: a maker's approved tokens waiting to be swept, and the sweep once done. */
export interface DustOrdersTable {
  id: string;
  chain: string;
  maker: string;
  token: string;
  /** Raw token units, decimal. */
  amount: string;
  tx: string;
  created_at: string;
  status: "open" | "swept" | "cancelled";
  sweep_tx: string | null;
  block_number: number | null;
  /** Wei, decimal. */
  eth_amount: string | null;
  /** USD value and USD per ETH at the sweep: SQLite `real`; PostgreSQL `numeric`, read back as decimal text. */
  usd_value: Decimal | null;
  eth_price: Decimal | null;
  swept_at: string | null;
}

/** Gas of an app's requests on a chain (or of one user id's) accepted in one minute: the spend windows' unit. */
export interface SpendBucketsTable {
  app_id: string;
  /** "app": the app's total (user_id ''); "user": one user id's share. */
  scope: SpendScope;
  user_id: string;
  chain: string;
  /** Minutes since the epoch. */
  minute: number;
  /** Worst case reserved by the bucket's requests not yet settled. */
  pending_gas: number;
  /** What its settled requests did cost. */
  settled_gas: number;
}

/** `signature_audit_mark`: one row (id 1), the highest seq ever given out, raised in each append's transaction. */
export interface SignatureAuditMarkTable {
  id: number;
  seq: number;
  /** HMAC under AUDIT_LOG_KEY of seq and that row's tag (auditMarkTag); null where the last append had no key. */
  tag: ColumnType<string | null, string | null | undefined, string | null>;
}

/** `signature_audit`: one signature a custody key made, chained to the row before by its hash (migration 014). */
export interface SignatureAuditTable {
  /** From 1, never reused (`signature_audit_mark` keeps the highest given out); rows are read in this order. */
  seq: number;
  /** ISO-8601. */
  at: string;
  purpose: string;
  /** EIP-55. */
  signer: string;
  /** Lower-case 0x hex, 32 bytes. */
  digest: string;
  /** Lower-case 0x hex, 65 bytes (r ‖ s ‖ v). */
  signature: string;
  app_id: string | null;
  user_id: string | null;
  chain: string | null;
  /** A custody root's covered hashes, a JSON array (migration 023); null for every other row. */
  covers: ColumnType<string | null, string | null | undefined, string | null>;
  /** The hash of the row before (the genesis hash, 0x and 64 zeros, for the first). */
  prev_hash: string;
  /** SHA-256 of prev_hash and the row (audit/auditRowHash.ts), or from AUDIT_LOG_KEY on, its HMAC tag (auditKey.ts). */
  hash: string;
}

/** A decimal column (migrations/dialect.ts `decimal`): written as a number, read back as one or as decimal text. */
export type Decimal = ColumnType<number | string, number, number>;

/** Every table of the database, keyed by table name, for `Kysely<DatabaseSchema>`. */
/** Which instance runs a chain's transaction worker, and its fencing token (migration 015). */
export interface WorkerLeasesTable {
  name: string;
  holder_id: string;
  holder_host: string;
  holder_pid: number;
  holder_pid_namespace: string;
  token: number;
  acquired_at: string;
  expires_at: string;
}

export interface DatabaseSchema extends ConsoleTables {
  apps: AppsTable;
  settings: SettingsTable;
  otp_codes: OtpCodesTable;
  app_providers: AppProvidersTable;
  transactions: TransactionsTable;
  app_rate_windows: AppRateWindowsTable;
  limit_counters: LimitCountersTable;
  spend_buckets: SpendBucketsTable;
  bundles: BundlesTable;
  safes: SafesTable;
  dust_tokens: DustTokensTable;
  dust_prices: DustPricesTable;
  dust_orders: DustOrdersTable;
  signature_audit: SignatureAuditTable;
  worker_leases: WorkerLeasesTable;
  signature_audit_mark: SignatureAuditMarkTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
