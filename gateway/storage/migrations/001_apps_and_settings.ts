import { sql, type Kysely } from "kysely";
import { timestamp } from "./dialect";

/** Creates `apps` (API clients) and `settings` (service-wide switches such as maintenance mode). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("apps")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("client_id", "text", (col) => col.notNull().unique())
    .addColumn("secret_hash", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("test_mode", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("updated_at", timestamp(db), (col) => col.notNull())
    .addColumn("secret_rotated_at", timestamp(db), (col) => col.notNull())
    // Constraints, not just the zod parse on read, so a hand-edited row cannot put the service in an unknown state.
    .addCheckConstraint("apps_status_check", sql`status in ('active', 'disabled')`)
    .addCheckConstraint("apps_test_mode_check", sql`test_mode in (0, 1)`)
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (col) => col.primaryKey())
    .addColumn("value", "text", (col) => col.notNull())
    .addColumn("updated_at", timestamp(db), (col) => col.notNull())
    .execute();
}

/** Drops both tables; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("settings").execute();
  await db.schema.dropTable("apps").execute();
}
