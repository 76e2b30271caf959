import type { Kysely } from "kysely";
import { int64 } from "./dialect";

/**
 * Gas a request burned before it was final (design §1.7): every mined relayer transaction sent for it alone (a
 * Safe relay), reverted or not, adds its gasUsed to `spent_gas`, so sends that revert on chain are charged to the
 * app's budget instead of only the last one. A reverted wallet bundle's gas, charged to no request, is kept in
 * `bundles.reverted_gas`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("transactions")
    .addColumn("spent_gas", int64(db), (col) => col.notNull().defaultTo(0))
    .execute();
  // A wallet bundle that reverted as a whole is charged to none of its operations (an outsider front-running
  // validation causes those): its gas is the relayer's own loss, kept per bundle for the operator's metric.
  await db.schema.alterTable("bundles").addColumn("reverted_gas", int64(db)).execute();
}

/** Drops what `up` added; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("bundles").dropColumn("reverted_gas").execute();
  await db.schema.alterTable("transactions").dropColumn("spent_gas").execute();
}
