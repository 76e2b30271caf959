import type { Kysely } from "kysely";
import { int64, timestamp } from "./dialect";

/**
 * Which instance runs each chain's transaction worker (issue: several instances on one database). One row a chain:
 * the holder (its instance, process id and pid namespace, and a random id of the process), a fencing token raised on every change of
 * holder, and when the lease ends unless renewed. Every write of a worker checks the token in its transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("worker_leases")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("holder_id", "text", (c) => c.notNull())
    .addColumn("holder_host", "text", (c) => c.notNull())
    .addColumn("holder_pid", "integer", (c) => c.notNull())
    .addColumn("holder_pid_namespace", "text", (c) => c.notNull())
    .addColumn("token", int64(db), (c) => c.notNull())
    .addColumn("acquired_at", timestamp(db), (c) => c.notNull())
    .addColumn("expires_at", timestamp(db), (c) => c.notNull())
    .execute();
}

/** Drops the table; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("worker_leases").execute();
}
