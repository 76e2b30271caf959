import BetterSqlite3 from "better-sqlite3";
import { expect } from "chai";
import { Kysely, sql } from "kysely";
import { MIGRATIONS, runMigrations } from "../../../gateway/storage/migrations";
import { isPostgres } from "../../../gateway/storage/sql/dialect/dialectOf";
import { postgresKysely } from "../../../gateway/storage/sql/dialect/postgresConnection";
import { IdwalletSqliteDialect } from "../../../gateway/storage/sql/dialect/sqliteConnection";
import { freshPostgresDatabase } from "../../helpers/postgresServer";

const T0 = "2025-01-01T00:00:00.000Z";

/** Migrations up to and including `last`. */
const migrationsThrough = (last: string) =>
  Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name <= last));

/** Codes and audit rows stored under migration 014, then migration 017 applied: what it made of them. */
async function migrated<DB>(db: Kysely<DB>) {
  await runMigrations(db, migrationsThrough("014_signature_audit"));
  // Two codes of one phone in one millisecond, inserted in the opposite order of their ids.
  for (const id of ["otp_z", "otp_a"]) {
    await sql`insert into otp_codes (id, phone, code_hash, created_at, expires_at)
      values (${id}, '1', 'h', ${T0}, ${T0})`.execute(db);
  }
  for (const seq of [1, 2, 3]) {
    await sql`insert into signature_audit (seq, at, purpose, signer, digest, signature, prev_hash, hash)
      values (${seq}, ${T0}, 'p', 's', 'd', 'x', 'h', 'h')`.execute(db);
  }
  // SQLite remembers a seq given out past the newest row (a deleted one): the mark must keep it.
  if (!isPostgres(db)) await sql`update sqlite_sequence set seq = 5 where name = 'signature_audit'`.execute(db);
  await runMigrations(db);
  const otp = await sql<{ id: string; seq: number }>`select id, seq from otp_codes order by seq`.execute(db);
  const mark = await sql<{ id: number; seq: number }>`select id, seq from signature_audit_mark`.execute(db);
  return { otp: otp.rows, mark: mark.rows };
}

/** What each edit of the mark does: "ok", or the error's message. */
async function editsOfTheMark<DB>(db: Kysely<DB>) {
  const attempt = (statement: string) =>
    sql
      .raw(statement)
      .execute(db)
      .then(
        () => "ok",
        (error: Error) => error.message,
      );
  return [
    await attempt("update signature_audit_mark set seq = seq + 1"),
    await attempt("update signature_audit_mark set seq = 0"),
    await attempt("delete from signature_audit_mark"),
    await attempt("insert into signature_audit_mark (id, seq) values (2, 9)"),
  ];
}

describe("storage: migration 017 (OTP issue order, the audit log's mark) on SQLite and PostgreSQL", () => {
  it("on SQLite: codes keep their rowid order, the mark the highest seq sqlite_sequence gave out", async () => {
    const db = new Kysely<unknown>({ dialect: new IdwalletSqliteDialect({ database: new BetterSqlite3(":memory:") }) });
    try {
      expect(await migrated(db)).to.deep.equal({
        otp: [
          { id: "otp_z", seq: 1 },
          { id: "otp_a", seq: 2 },
        ],
        mark: [{ id: 1, seq: 5 }],
      });
      const edits = await editsOfTheMark(db);
      expect(edits.slice(0, 3)).to.deep.equal([
        "ok",
        "the signature audit mark only grows",
        "the signature audit mark only grows",
      ]);
      expect(edits[3]).to.match(/CHECK constraint failed: signature_audit_mark_one_row/);
    } finally {
      await db.destroy();
    }
  });

  it("on PostgreSQL: codes take their (created_at, id) rank, the mark the newest seq", async () => {
    const db = postgresKysely(await freshPostgresDatabase("migration_017"));
    try {
      expect(await migrated(db)).to.deep.equal({
        otp: [
          { id: "otp_a", seq: 1 },
          { id: "otp_z", seq: 2 },
        ],
        mark: [{ id: 1, seq: 3 }],
      });
      const edits = await editsOfTheMark(db);
      expect(edits.slice(0, 3)).to.deep.equal([
        "ok",
        "the signature audit mark only grows",
        "the signature audit mark only grows",
      ]);
      expect(edits[3]).to.match(/signature_audit_mark_one_row/);
      const truncate = await sql`truncate signature_audit_mark`.execute(db).then(
        () => "ok",
        (error: Error) => error.message,
      );
      expect(truncate).to.equal("the signature audit mark only grows");
    } finally {
      await db.destroy();
    }
  });
});
