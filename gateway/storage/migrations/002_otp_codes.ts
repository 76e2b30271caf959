import { sql, type Kysely } from "kysely";
import { timestamp } from "./dialect";

/** Creates `otp_codes`: phone login codes (spec §4.5, §4.6), kept only as HMACs (design §1.6). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("otp_codes")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("phone", "text", (col) => col.notNull())
    .addColumn("code_hash", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("expires_at", timestamp(db), (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("used", "integer", (col) => col.notNull().defaultTo(0))
    .addCheckConstraint("otp_codes_attempts_check", sql`attempts >= 0`)
    .addCheckConstraint("otp_codes_used_check", sql`used in (0, 1)`)
    .execute();
  // The latest code of a phone, and the phone's codes of the last hour (rate limits).
  await db.schema.createIndex("otp_codes_phone_created").on("otp_codes").columns(["phone", "created_at"]).execute();
  // Purging old rows.
  await db.schema.createIndex("otp_codes_created").on("otp_codes").column("created_at").execute();
}

/** Drops the table; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("otp_codes").execute();
}
