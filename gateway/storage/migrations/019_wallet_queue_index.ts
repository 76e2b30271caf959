import type { Kysely } from "kysely";

/**
 * The worker's look-up of due requests (each wallet's oldest queued one, none of a wallet with one submitted) as index
 * seeks: `(chain, sender, status, created_at)` answers "has this wallet an older queued request, or a submitted one"
 * without reading its history, so picking a bundle costs its size, not the queue's (it read every queued request,
 * ranked by wallet, for every bundle). It serves look-ups by `(chain, sender)` too, so that index goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("transactions_wallet_status")
    .on("transactions")
    .columns(["chain", "sender", "status", "created_at"])
    .execute();
  await db.schema.dropIndex("transactions_sender").execute();
}

/** Restores the index before; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("transactions_sender").on("transactions").columns(["chain", "sender"]).execute();
  await db.schema.dropIndex("transactions_wallet_status").execute();
}
