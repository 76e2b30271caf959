import type { Kysely } from "kysely";

/**
 * `signature_audit_mark.tag`: the HMAC under AUDIT_LOG_KEY of the highest seq given out and that row's tag, written
 * by each keyed append (custody/audit/auditKey.ts). The mark alone only says how far the log went; whoever writes the
 * database can wind it back after cutting the end off, but cannot tag the lower seq. Null until a keyed append:
 * the rows before the key, and the mark over them, verify as they did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("signature_audit_mark").addColumn("tag", "text").execute();
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("signature_audit_mark").dropColumn("tag").execute();
}
