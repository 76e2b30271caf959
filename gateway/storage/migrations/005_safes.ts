import { sql, type Kysely } from "kysely";
import { int64, timestamp } from "./dialect";

/**
 * Safe accounts (spec §4.10). Creates `safes` (a Safe an app created: where, its owners and the exact deployment
 * call, so its address never depends on later configuration) and lets `transactions` carry Safe requests through
 * the same queue: account type `safe`, the action asked for, and the Safe transaction's hash and nonce once built.
 * SQLite cannot change a check constraint in place, so `transactions` is rebuilt with its rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("safes")
    .addColumn("chain", "text", (col) => col.notNull())
    .addColumn("address", "text", (col) => col.notNull())
    .addColumn("app_id", "text", (col) => col.notNull().references("apps.id"))
    // JSON array of owner addresses, the operator's included; the threshold is always 1.
    .addColumn("owners", "text", (col) => col.notNull())
    .addColumn("salt_nonce", "text", (col) => col.notNull())
    .addColumn("singleton", "text", (col) => col.notNull())
    .addColumn("proxy_factory", "text", (col) => col.notNull())
    .addColumn("fallback_handler", "text", (col) => col.notNull())
    // The transaction request that deploys it.
    .addColumn("deployment_tx_id", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addPrimaryKeyConstraint("safes_pk", ["chain", "address"])
    .execute();
  // Listing an app's Safes on a chain, oldest first, page by page.
  await db.schema.createIndex("safes_app_chain").on("safes").columns(["app_id", "chain", "created_at"]).execute();

  await db.schema
    .createTable("transactions_v5")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("app_id", "text", (col) => col.notNull().references("apps.id"))
    .addColumn("account_type", "text", (col) => col.notNull())
    .addColumn("user_id", "text", (col) => col.notNull())
    .addColumn("chain", "text", (col) => col.notNull())
    .addColumn("sender", "text", (col) => col.notNull())
    .addColumn("calls", "text", (col) => col.notNull())
    .addColumn("delegatecall", "integer", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("idempotency_key", "text")
    .addColumn("request_hash", "text", (col) => col.notNull())
    .addColumn("user_op", "text")
    .addColumn("user_op_hash", "text")
    .addColumn("bundle_id", "text", (col) => col.references("bundles.id"))
    .addColumn("transaction_hash", "text")
    .addColumn("block_number", int64(db))
    .addColumn("success", "integer")
    .addColumn("error_code", "text")
    .addColumn("error_message", "text")
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("next_attempt_at", timestamp(db), (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("updated_at", timestamp(db), (col) => col.notNull())
    // Safe requests: what was asked (create, custom, transfer, disperse, disperseNFT) and, once built, the Safe
    // transaction's EIP-712 hash and nonce.
    .addColumn("safe_action", "text")
    .addColumn("safe_tx_hash", "text")
    .addColumn("safe_nonce", int64(db))
    .addCheckConstraint("transactions_status_check", sql`status in ('queued', 'submitted', 'included', 'failed')`)
    .addCheckConstraint("transactions_account_type_check", sql`account_type in ('kernel', 'base', 'safe')`)
    .addCheckConstraint(
      "transactions_safe_action_check",
      sql`(account_type = 'safe') = (safe_action is not null)
        and (safe_action is null or safe_action in ('create', 'custom', 'transfer', 'disperse', 'disperseNFT'))`,
    )
    .execute();
  await sql`insert into transactions_v5 (id, app_id, account_type, user_id, chain, sender, calls, delegatecall, status,
      idempotency_key, request_hash, user_op, user_op_hash, bundle_id, transaction_hash, block_number, success,
      error_code, error_message, attempts, next_attempt_at, created_at, updated_at)
    select id, app_id, account_type, user_id, chain, sender, calls, delegatecall, status, idempotency_key,
      request_hash, user_op, user_op_hash, bundle_id, transaction_hash, block_number, success, error_code,
      error_message, attempts, next_attempt_at, created_at, updated_at
    from transactions`.execute(db);
  await db.schema.dropTable("transactions").execute();
  await db.schema.alterTable("transactions_v5").renameTo("transactions").execute();
  await db.schema
    .createIndex("transactions_app_idempotency")
    .on("transactions")
    .columns(["app_id", "idempotency_key"])
    .unique()
    .where(sql.ref("idempotency_key"), "is not", null)
    .execute();
  await db.schema
    .createIndex("transactions_chain_status")
    .on("transactions")
    .columns(["chain", "status", "created_at"])
    .execute();
  await db.schema.createIndex("transactions_bundle").on("transactions").column("bundle_id").execute();
  // A Safe's requests, newest first (its status routes look them up by id and Safe).
  await db.schema.createIndex("transactions_sender").on("transactions").columns(["chain", "sender"]).execute();
}

/** Only for development: a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("safes").execute();
}
