import type { Kysely } from "kysely";
import { timestamp } from "./dialect";

/**
 * Provider names are permanent (design §3): `providers remove` disables a registration instead of deleting it,
 * so the name can never be registered by another app, which would then control every existing wallet of it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("app_providers").addColumn("disabled_at", timestamp(db)).execute();
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("app_providers").dropColumn("disabled_at").execute();
}
