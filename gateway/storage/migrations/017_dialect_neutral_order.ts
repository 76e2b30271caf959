import { sql, type Kysely } from "kysely";
import { int64, isPostgres } from "./dialect";

/**
 * What SQLite kept in places PostgreSQL does not have, moved into columns and tables both have:
 * - `otp_codes.seq`: a phone's codes in the order they were issued (two codes may share a millisecond), which the
 *   repository read from SQLite's `rowid`. Existing rows take their rowid on SQLite, their (created_at, id) rank on
 *   PostgreSQL.
 * - `signature_audit_mark`: one row, the highest audit seq ever given out, which the repository read from SQLite's
 *   `sqlite_sequence`. Written in each append's transaction, so a rolled-back append gives nothing out (PostgreSQL's
 *   sequences are not transactional: a rolled-back append would leave a gap `audit verify` reads as a deletion).
 *   Triggers refuse to delete it or lower it, as the log's own refuse edits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .alterTable("otp_codes")
    .addColumn("seq", int64(db), (col) => col.notNull().defaultTo(0))
    .execute();
  await (
    postgres
      ? sql`update otp_codes set seq = ranked.n
          from (select id, row_number() over (order by created_at, id) as n from otp_codes) as ranked
          where ranked.id = otp_codes.id`
      : sql`update otp_codes set seq = rowid`
  ).execute(db);

  await db.schema
    .createTable("signature_audit_mark")
    .addColumn("id", "integer", (col) => col.primaryKey())
    .addColumn("seq", int64(db), (col) => col.notNull())
    .addCheckConstraint("signature_audit_mark_one_row", sql`id = 1`)
    .execute();
  const given = postgres ? sql`0` : sql`coalesce((select seq from sqlite_sequence where name = 'signature_audit'), 0)`;
  await sql`insert into signature_audit_mark (id, seq)
    select 1, case when ${given} > coalesce(max(seq), 0) then ${given} else coalesce(max(seq), 0) end
    from signature_audit`.execute(db);
  if (postgres) return guardMarkOnPostgres(db);
  await sql`
    create trigger signature_audit_mark_no_delete before delete on signature_audit_mark
    begin select raise(abort, 'the signature audit mark only grows'); end`.execute(db);
  await sql`
    create trigger signature_audit_mark_no_lowering before update on signature_audit_mark
    when new.seq < old.seq or new.id <> old.id
    begin select raise(abort, 'the signature audit mark only grows'); end`.execute(db);
}

/** The mark's triggers in PL/pgSQL; TRUNCATE fires no row trigger, so it is refused too. */
async function guardMarkOnPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function signature_audit_mark_only_grows() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and new.seq >= old.seq and new.id = old.id then return new; end if;
      raise exception 'the signature audit mark only grows';
    end $$`.execute(db);
  for (const [name, event, each] of [
    ["no_delete", "delete", "row"],
    ["no_lowering", "update", "row"],
    ["no_truncate", "truncate", "statement"],
  ] as const) {
    await sql`
      create trigger ${sql.raw(`signature_audit_mark_${name}`)} before ${sql.raw(event)} on signature_audit_mark
      for each ${sql.raw(each)} execute function signature_audit_mark_only_grows()`.execute(db);
  }
}

/** Drops the table and the column; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("signature_audit_mark").execute();
  if (isPostgres(db)) await sql`drop function signature_audit_mark_only_grows()`.execute(db);
  await db.schema.alterTable("otp_codes").dropColumn("seq").execute();
}
