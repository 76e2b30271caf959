import { sql, type Kysely } from "kysely";
import { int64, timestamp } from "./dialect";

/**
 * Creates `transactions` (one accepted wallet transaction request and its UserOperation's lifecycle, spec §4.3)
 * and `bundles` (one relayer transaction calling EntryPoint.handleOps, with every fee-bumped version sent).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bundles")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("chain", "text", (col) => col.notNull())
    .addColumn("relayer", "text", (col) => col.notNull())
    .addColumn("nonce", int64(db), (col) => col.notNull())
    // JSON array of every version's transaction hash, oldest first; the last one is `raw_tx`.
    .addColumn("tx_hashes", "text", (col) => col.notNull())
    .addColumn("raw_tx", "text", (col) => col.notNull())
    .addColumn("max_fee_per_gas", "text", (col) => col.notNull())
    .addColumn("max_priority_fee_per_gas", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("mined_tx_hash", "text")
    .addColumn("block_number", int64(db))
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("updated_at", timestamp(db), (col) => col.notNull())
    .addColumn("sent_at", timestamp(db), (col) => col.notNull())
    .addCheckConstraint("bundles_status_check", sql`status in ('pending', 'mined', 'dropped')`)
    .execute();
  await db.schema.createIndex("bundles_chain_status").on("bundles").columns(["chain", "status"]).execute();

  await db.schema
    .createTable("transactions")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("app_id", "text", (col) => col.notNull().references("apps.id"))
    .addColumn("account_type", "text", (col) => col.notNull())
    .addColumn("user_id", "text", (col) => col.notNull())
    .addColumn("chain", "text", (col) => col.notNull())
    .addColumn("sender", "text", (col) => col.notNull())
    // JSON array of {to, value (decimal string), data}.
    .addColumn("calls", "text", (col) => col.notNull())
    .addColumn("delegatecall", "integer", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("idempotency_key", "text")
    // sha256 of the normalized request: the same Idempotency-Key with another body is a conflict.
    .addColumn("request_hash", "text", (col) => col.notNull())
    // The signed UserOperation last built (JSON) and its hash: recorded before it is sent anywhere.
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
    .addCheckConstraint("transactions_status_check", sql`status in ('queued', 'submitted', 'included', 'failed')`)
    .addCheckConstraint("transactions_account_type_check", sql`account_type in ('kernel', 'base')`)
    .execute();
  // Idempotency keys are scoped to the app that sent them.
  await db.schema
    .createIndex("transactions_app_idempotency")
    .on("transactions")
    .columns(["app_id", "idempotency_key"])
    .unique()
    .where(sql.ref("idempotency_key"), "is not", null)
    .execute();
  // The worker's queue: a chain's queued and submitted operations, oldest first.
  await db.schema
    .createIndex("transactions_chain_status")
    .on("transactions")
    .columns(["chain", "status", "created_at"])
    .execute();
  await db.schema.createIndex("transactions_bundle").on("transactions").column("bundle_id").execute();
}

/** Drops the tables; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("transactions").execute();
  await db.schema.dropTable("bundles").execute();
}
