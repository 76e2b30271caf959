import { sql } from "kysely";
import { isPostgresConnectionUrl } from "../../gateway/config/databaseSetting";
import { type AuditRow, auditRowHash } from "../../gateway/custody/audit";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";

/** The database as the thief's own connection has it. */
type Db = Awaited<ReturnType<typeof openDatabase>>["db"];

const GUARDS = [
  ["signature_audit", "signature_audit_no_update"],
  ["signature_audit", "signature_audit_no_delete"],
  ["signature_audit_mark", "signature_audit_mark_no_lowering"],
] as const;

/**
 * Runs `use` on the database at `location` as a thief with its credentials: the triggers that refuse edits and
 * deletions out of the way (SQLite: dropped, as anyone with the file may; PostgreSQL: disabled, as the tables' owner
 * may), and put back afterwards, so nothing but the rows shows he was there.
 */
async function asThief(location: string, use: (db: Db) => Promise<void>): Promise<void> {
  const database = await openDatabase(location);
  const db = database.db;
  const postgres = isPostgresConnectionUrl(location);
  try {
    const definitions: string[] = [];
    for (const [table, trigger] of GUARDS) {
      if (postgres) {
        await sql`alter table ${sql.table(table)} disable trigger ${sql.raw(trigger)}`.execute(db);
        continue;
      }
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = ${trigger}`.execute(db);
      definitions.push(rows[0]!.sql);
      await sql`drop trigger ${sql.raw(trigger)}`.execute(db);
    }
    await use(db);
    for (const [table, trigger] of GUARDS) {
      if (postgres) await sql`alter table ${sql.table(table)} enable trigger ${sql.raw(trigger)}`.execute(db);
    }
    for (const definition of definitions) await sql.raw(definition).execute(db);
  } finally {
    await database.close();
  }
}

/** Every row of the log, as the service reads them. */
async function allRows(db: Db): Promise<AuditRow[]> {
  const rows: AuditRow[] = [];
  for await (const row of createRepositories(db, () => new Date()).auditLog.rows()) rows.push(row);
  return rows;
}

/**
 * The thief edits row `seq` with `edit`, then chains it and every row after it again as the log's (public) scheme
 * does: SHA-256 of the row before's hash and the row (auditRowHash), written straight into the database.
 */
export async function rechainEditedRow(
  location: string,
  seq: number,
  edit: (row: AuditRow) => AuditRow,
): Promise<void> {
  await asThief(location, async (db) => {
    const rows = await allRows(db);
    let prevHash = rows.find((row) => row.seq === seq - 1)?.hash ?? `0x${"0".repeat(64)}`;
    for (const original of rows.filter((row) => row.seq >= seq)) {
      const row = original.seq === seq ? edit(original) : original;
      const hash = auditRowHash(prevHash, row);
      await db
        .updateTable("signature_audit")
        .set({ app_id: row.appId ?? null, digest: row.digest, prev_hash: prevHash, hash })
        .where("seq", "=", row.seq)
        .execute();
      prevHash = hash;
    }
  });
}

/** The thief deletes the last `count` rows and winds the mark of the highest seq given out back to the row before. */
export async function cutAuditEnd(location: string, count: number): Promise<number> {
  let newest = 0;
  await asThief(location, async (db) => {
    const rows = await allRows(db);
    newest = rows.at(-1 - count)!.seq;
    await db.deleteFrom("signature_audit").where("seq", ">", newest).execute();
    await db.updateTable("signature_audit_mark").set({ seq: newest }).where("id", "=", 1).execute();
  });
  return newest;
}
