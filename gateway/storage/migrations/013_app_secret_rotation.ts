import { sql, type Kysely } from "kysely";

/**
 * Adds `apps.secret_generation`, raised by every `apps rotate-secret`. App tokens carry the generation they were
 * issued under, and one of an earlier generation is refused: a rotation revokes every token of the old secret.
 * Tokens issued before this migration carry none and count as generation 0. An app whose secret was already rotated
 * may still have tokens of its old secret in circulation, so it starts at 1: its tokens of that day stop working
 * (it requests new ones), none of its old secret's survive.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("apps")
    .addColumn("secret_generation", "integer", (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`update apps set secret_generation = 1 where secret_rotated_at > created_at`.execute(db);
}

/** Drops the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("apps").dropColumn("secret_generation").execute();
}
