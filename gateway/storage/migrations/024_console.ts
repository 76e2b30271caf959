import type { Kysely } from "kysely";
import { int64, isPostgres, timestamp } from "./dialect";

/**
 * The operator console (issue 38), kept in the database so every instance of a deployment honours it:
 *
 * - `console_links`: a one-time login link (`npm run admin -- console open`), by the SHA-256 of its secret, with its
 *   expiry and when it was used (a link opens one session, once).
 * - `console_sessions`: an open console session, by the SHA-256 of the cookie's random id, with its expiry.
 * - `console_actions`: every operator action (console or CLI): who, when, what, on what, and how it ended.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("console_links")
    .addColumn("token_hash", "text", (col) => col.primaryKey())
    .addColumn("label", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("expires_at", timestamp(db), (col) => col.notNull())
    .addColumn("used_at", timestamp(db))
    .execute();
  await db.schema
    .createTable("console_sessions")
    .addColumn("id_hash", "text", (col) => col.primaryKey())
    .addColumn("label", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("expires_at", timestamp(db), (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("console_actions")
    .addColumn("seq", int64(db), (col) =>
      isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn("at", timestamp(db), (col) => col.notNull())
    .addColumn("who", "text", (col) => col.notNull())
    .addColumn("action", "text", (col) => col.notNull())
    .addColumn("target", "text", (col) => col.notNull())
    .addColumn("detail", "text")
    .addColumn("result", "text", (col) => col.notNull())
    .execute();
  // The console's request views: a chain's recent requests and bundles, newest first.
  await db.schema
    .createIndex("transactions_chain_updated")
    .on("transactions")
    .columns(["chain", "updated_at"])
    .execute();
  await db.schema.createIndex("bundles_chain_created").on("bundles").columns(["chain", "created_at"]).execute();
}

/** Drops the tables; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("bundles_chain_created").execute();
  await db.schema.dropIndex("transactions_chain_updated").execute();
  await db.schema.dropTable("console_actions").execute();
  await db.schema.dropTable("console_sessions").execute();
  await db.schema.dropTable("console_links").execute();
}
