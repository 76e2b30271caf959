import type { Kysely } from "kysely";
import { timestamp } from "./dialect";

/** Adds `otp_codes.last_failed_at`: when the phone last sent a wrong code, which its backoff counts from. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("otp_codes").addColumn("last_failed_at", timestamp(db)).execute();
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("otp_codes").dropColumn("last_failed_at").execute();
}
