import { type Kysely, sql } from "kysely";

/**
 * The indexes the request listings read (GET /v1/kernel/tx, GET /v1/{chain}/account/{address}/txs), newest first, a
 * page at a time from a (created_at, id) place: an app's requests of one account type, the same of one user id, and
 * of one Safe on a chain. Each listing is then a seek and a walk of its page, whatever the table holds; the filters they
 * do not cover (chain, status) are bounded per page by the listing (transactions/txListing.ts). Their columns never
 * change once a request is stored, so a request's state changes do not touch them on SQLite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("transactions_app_listing")
    .on("transactions")
    .columns(["app_id", "account_type", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("transactions_user_listing")
    .on("transactions")
    .columns(["app_id", "account_type", "user_id", "created_at", "id"])
    .execute();
  // Safe requests only: the wallet requests, the hot inserts, do not pay for it.
  await db.schema
    .createIndex("transactions_safe_listing")
    .on("transactions")
    .columns(["app_id", "chain", "sender", "created_at", "id"])
    .where(sql.ref("account_type"), "=", "safe")
    .execute();
}

/** Drops the indexes; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ["transactions_app_listing", "transactions_user_listing", "transactions_safe_listing"]) {
    await db.schema.dropIndex(name).execute();
  }
}
