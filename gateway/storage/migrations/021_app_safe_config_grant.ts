import { sql, type Kysely } from "kysely";

/**
 * Adds `apps.safe_config_granted`: whether the operator lets the app send Safe transactions that can change the
 * Safe's configuration (a call to the Safe itself, a delegatecall, a Safe configuration function): its owners,
 * threshold, modules, guards or fallback handler, which otherwise only the customer's key changes (design invariant
 * 9). Every existing app starts without the grant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("apps")
    .addColumn("safe_config_granted", "integer", (col) =>
      col
        .notNull()
        .defaultTo(0)
        .check(sql`safe_config_granted in (0, 1)`),
    )
    .execute();
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("apps").dropColumn("safe_config_granted").execute();
}
