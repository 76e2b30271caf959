import { sql, type Kysely } from "kysely";

/**
 * Adds `apps.delegatecall_granted`: whether the operator lets the app send `delegatecall: 1` requests (the target's
 * code runs as the wallet and could rewrite its owner). Every existing app starts without the grant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("apps")
    .addColumn("delegatecall_granted", "integer", (col) =>
      col
        .notNull()
        .defaultTo(0)
        .check(sql`delegatecall_granted in (0, 1)`),
    )
    .execute();
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("apps").dropColumn("delegatecall_granted").execute();
}
