import type { Kysely } from "kysely";
import { timestamp } from "./dialect";

/**
 * `limit_counters`: the per-address, per-network, per-client and per-app request limits (phone login, the token
 * endpoint), counted in the database so every process and every instance on it shares one count. One row per limit
 * and key holds its current window: `count` hits until `expires_at`; the first hit after that starts a new window.
 * Ended windows are deleted by the service (gateway/limits/sharedLimits.ts), found through the `expires_at` index.
 * Nothing here is 64-bit (a count stays below its limit and a few processes' over-hits); `expires_at` is a timestamp
 * like every other (ISO-8601 text on SQLite, `timestamptz` on PostgreSQL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("limit_counters")
    .addColumn("rule", "text", (col) => col.notNull())
    .addColumn("key", "text", (col) => col.notNull())
    .addColumn("count", "integer", (col) => col.notNull())
    .addColumn("expires_at", timestamp(db), (col) => col.notNull())
    .addPrimaryKeyConstraint("limit_counters_pk", ["rule", "key"])
    .execute();
  await db.schema.createIndex("limit_counters_expires_at").on("limit_counters").column("expires_at").execute();
}

/** Drops the table; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("limit_counters").execute();
}
