import { sql, type Kysely } from "kysely";
import { isPostgres, timestamp } from "./dialect";

/**
 * `signature_audit`: every signature a custody key makes, logged before it leaves the process (design §1.8), each row
 * chained to the one before by its hash. AUTOINCREMENT: a seq is never given out twice, not even after the newest row
 * was deleted, so such a deletion leaves a gap the chain check finds. Triggers refuse updates and deletes: the service
 * only appends, and an edit has to go around them (which the hash chain then shows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable("signature_audit")
    // PostgreSQL: an identity column's sequence, like AUTOINCREMENT, never gives a value out twice.
    .addColumn("seq", postgres ? "bigint" : "integer", (col) =>
      postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn("at", timestamp(db), (col) => col.notNull())
    .addColumn("purpose", "text", (col) => col.notNull())
    .addColumn("signer", "text", (col) => col.notNull())
    .addColumn("digest", "text", (col) => col.notNull())
    .addColumn("signature", "text", (col) => col.notNull())
    .addColumn("app_id", "text")
    .addColumn("user_id", "text")
    .addColumn("chain", "text")
    .addColumn("prev_hash", "text", (col) => col.notNull())
    .addColumn("hash", "text", (col) => col.notNull())
    .execute();
  if (postgres) return refuseEditsOnPostgres(db);
  for (const action of ["update", "delete"]) {
    await sql`
      create trigger ${sql.raw(`signature_audit_no_${action}`)} before ${sql.raw(action)} on signature_audit
      begin select raise(abort, 'the signature audit log is append-only'); end`.execute(db);
  }
}

/**
 * The same refusal in PL/pgSQL. TRUNCATE fires no row trigger on PostgreSQL (SQLite has none), so it is refused too,
 * or it would empty the log around the delete trigger.
 */
async function refuseEditsOnPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function signature_audit_append_only() returns trigger language plpgsql as $$
    begin raise exception 'the signature audit log is append-only'; end $$`.execute(db);
  for (const [action, each] of [
    ["update", "row"],
    ["delete", "row"],
    ["truncate", "statement"],
  ] as const) {
    await sql`
      create trigger ${sql.raw(`signature_audit_no_${action}`)} before ${sql.raw(action)} on signature_audit
      for each ${sql.raw(each)} execute function signature_audit_append_only()`.execute(db);
  }
}

/** Drops the table; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("signature_audit").execute();
  if (isPostgres(db)) await sql`drop function signature_audit_append_only()`.execute(db);
}
