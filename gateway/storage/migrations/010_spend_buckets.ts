import { type Kysely, sql } from "kysely";
import { int64, isPostgres } from "./dialect";

/**
 * Spend per minute (design §1.7): each app's gas on a chain, and each of its user ids', summed per one-minute bucket
 * as reserved-and-unsettled (`pending_gas`) and settled (`settled_gas`). A spend check sums at most a period's
 * buckets instead of every request of the window, so no app can make another's acceptance slow by filling its own.
 * Filled from the requests already stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("spend_buckets")
    .addColumn("app_id", "text", (col) => col.notNull())
    // "app": the app's total on the chain (user_id ''); "user": one user id's share of it.
    .addColumn("scope", "text", (col) => col.notNull())
    .addColumn("user_id", "text", (col) => col.notNull())
    .addColumn("chain", "text", (col) => col.notNull())
    // Minutes since the epoch of the requests' acceptance.
    .addColumn("minute", int64(db), (col) => col.notNull())
    .addColumn("pending_gas", int64(db), (col) => col.notNull())
    .addColumn("settled_gas", int64(db), (col) => col.notNull())
    .addPrimaryKeyConstraint("spend_buckets_pk", ["app_id", "scope", "user_id", "chain", "minute"])
    .execute();
  // Unsettled reservations count whatever their age: found without reading the settled past.
  await sql`create index spend_buckets_pending on spend_buckets (app_id, scope, user_id, chain, minute)
    where pending_gas > 0`.execute(db);
  const postgres = isPostgres(db);
  // The minute of the timestamp: ISO-8601 text on SQLite, `timestamptz` on PostgreSQL (which has no strftime, and
  // needs the scope parameter's type).
  const minute = postgres
    ? sql`cast(floor(extract(epoch from created_at) / 60) as bigint)`
    : sql`cast(strftime('%s', created_at) as integer) / 60`;
  for (const [scope, userId] of [
    ["app", "''"],
    ["user", "user_id"],
  ] as const) {
    const scopeValue = postgres ? sql`cast(${scope} as text)` : sql`${scope}`;
    await sql`
      insert into spend_buckets (app_id, scope, user_id, chain, minute, pending_gas, settled_gas)
      select app_id, ${scopeValue}, ${sql.raw(userId)}, chain, ${minute},
        sum(case when settled_gas is null then reserved_gas else 0 end), sum(coalesce(settled_gas, 0))
      from transactions
      group by 1, 2, 3, 4, 5`.execute(db);
  }
}

/** Drops what `up` added; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("spend_buckets").execute();
}
