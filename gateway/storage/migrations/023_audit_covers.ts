import type { Kysely } from "kysely";

/**
 * `signature_audit.covers`: for a custody root (wallet code 2.1: one signature over a bundle's Merkle root), the hashes
 * the root covers, as a JSON array of lower-case 0x hex in leaf order; null for every other row, which hashes as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("signature_audit").addColumn("covers", "text").execute();
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("signature_audit").dropColumn("covers").execute();
}
