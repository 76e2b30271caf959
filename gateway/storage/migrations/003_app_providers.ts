import type { Kysely } from "kysely";
import { timestamp } from "./dialect";

/** Creates `app_providers`: provider names apps own for their own identity services (spec §5.2). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("app_providers")
    // Unique across apps: a provider name belongs to one app.
    .addColumn("provider", "text", (col) => col.primaryKey())
    .addColumn("app_id", "text", (col) => col.notNull().references("apps.id"))
    // JSON of the verification key (ProofKey), issuer and audience.
    .addColumn("verification", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .execute();
  await db.schema.createIndex("app_providers_app").on("app_providers").column("app_id").execute();
}

/** Drops the table; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("app_providers").execute();
}
