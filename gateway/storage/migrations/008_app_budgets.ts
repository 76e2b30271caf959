import type { Kysely } from "kysely";
import { int64, timestamp } from "./dialect";

/**
 * Per-app budgets and policies (design §1.7): `apps.policy` holds the operator's settings (JSON, null for the
 * defaults); each request keeps the gas it reserved at acceptance (`reserved_gas`, its worst case) and, once final,
 * what it did use (`settled_gas`); `app_rate_windows` counts each app's requests per window, shared by every process
 * on the database.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("apps").addColumn("policy", "text").execute();
  await db.schema
    .alterTable("transactions")
    .addColumn("reserved_gas", int64(db), (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("transactions").addColumn("settled_gas", int64(db)).execute();
  // The spend of an app on a chain, and of one of its user ids, over a window: summed at every acceptance.
  await db.schema
    .createIndex("transactions_app_chain_created")
    .on("transactions")
    .columns(["app_id", "chain", "created_at"])
    .execute();
  await db.schema
    .createIndex("transactions_app_user_created")
    .on("transactions")
    .columns(["app_id", "user_id", "created_at"])
    .execute();
  await db.schema
    .createTable("app_rate_windows")
    .addColumn("app_id", "text", (col) => col.notNull().references("apps.id"))
    .addColumn("window_start", timestamp(db), (col) => col.notNull())
    .addColumn("count", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("app_rate_windows_pk", ["app_id", "window_start"])
    .execute();
}

/** Drops what `up` added; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("app_rate_windows").execute();
  await db.schema.dropIndex("transactions_app_user_created").execute();
  await db.schema.dropIndex("transactions_app_chain_created").execute();
  await db.schema.alterTable("transactions").dropColumn("settled_gas").execute();
  await db.schema.alterTable("transactions").dropColumn("reserved_gas").execute();
  await db.schema.alterTable("apps").dropColumn("policy").execute();
}
