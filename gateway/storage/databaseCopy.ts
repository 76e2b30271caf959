import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import { isPostgres } from "./sql/dialect/dialectOf";
import type { DatabaseSchema } from "./schema";

/** How one table is copied. */
interface TableCopy {
  /** Its place: after the tables its foreign keys reference. */
  readonly order: number;
  /**
   * A table a migration fills (one row, say): the target's rows count as empty while `untouched` holds for each, and
   * the copy overwrites them by `key` (an upsert) instead of adding rows.
   */
  readonly seeded?: { readonly key: string; readonly untouched: RawBuilder<boolean> };
}

/**
 * Every table of the schema and how it is copied. A Record over the schema's keys, so a table added to
 * `DatabaseSchema` without an entry here does not compile; one a migration creates without adding it to the schema is
 * refused when the copy lists the databases' tables.
 */
const TABLES: Readonly<Record<keyof DatabaseSchema, TableCopy>> = {
  apps: { order: 0 },
  settings: { order: 1 },
  app_providers: { order: 2 },
  otp_codes: { order: 3 },
  bundles: { order: 4 },
  transactions: { order: 5 },
  safes: { order: 6 },
  app_rate_windows: { order: 7 },
  // Windows of the shared request limits: copied, so a limit's count goes on where it was.
  limit_counters: { order: 8 },
  spend_buckets: { order: 9 },
  dust_tokens: { order: 10 },
  dust_prices: { order: 11 },
  dust_orders: { order: 12 },
  signature_audit: { order: 13 },
  // Migration 017 writes its one row (seq 0 on a new database); the copy raises it to the source's highest seq given out.
  signature_audit_mark: { order: 14, seeded: { key: "id", untouched: sql<boolean>`seq = 0` } },
  // The lease holders are the SQLite instance's and expire; copied so each lease's fencing token only grows.
  worker_leases: { order: 15 },
  // Endpoints (secrets stay sealed under the same SECRETS_KEY), the outbox, what is owed and what was tried.
  webhook_endpoints: { order: 16 },
  webhook_events: { order: 17 },
  webhook_deliveries: { order: 18 },
  webhook_attempts: { order: 19 },
  // The console's links and sessions (hashed, they expire) and the operators' actions, the record of who did what.
  console_links: { order: 20 },
  console_sessions: { order: 21 },
  console_actions: { order: 22 },
};

/** The tables in copy order. */
export const COPIED_TABLES = (Object.keys(TABLES) as (keyof DatabaseSchema)[]).sort(
  (a, b) => TABLES[a].order - TABLES[b].order,
);

/** Kysely's own bookkeeping: each side has its migrations recorded already. */
const MIGRATOR_TABLES = new Set(["kysely_migration", "kysely_migration_lock"]);

/** PostgreSQL takes at most 65,535 parameters a statement; a batch stays well below. */
const MAX_PARAMETERS = 30_000;
const MAX_BATCH_ROWS = 1_000;

/** A copy refused before anything was written (non-empty target, a table the copy does not know, wrong dialects). */
export class DatabaseCopyRefused extends Error {
  override readonly name = "DatabaseCopyRefused";
}

/** Untyped access to a table chosen at run time. */
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;
type Row = Record<string, unknown>;

async function sqliteTables(db: Kysely<DatabaseSchema>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'`.execute(db);
  return rows.map((r) => r.name).filter((name) => !MIGRATOR_TABLES.has(name));
}

async function postgresTables(db: Kysely<DatabaseSchema>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  return rows.map((r) => r.name).filter((name) => !MIGRATOR_TABLES.has(name));
}

/** Refuses a table on either side that the copy would skip, or a schema table missing from one side. */
function checkTables(side: string, tables: readonly string[]): void {
  const unknown = tables.filter((name) => !(COPIED_TABLES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new DatabaseCopyRefused(`the ${side} has table(s) the copy does not handle: ${unknown.join(", ")}`);
  }
  const missing = COPIED_TABLES.filter((name) => !tables.includes(name));
  if (missing.length > 0) throw new DatabaseCopyRefused(`the ${side} lacks table(s): ${missing.join(", ")}`);
}

/** Rows of `table`; with `except`, only those for which it does not hold. */
const countRows = async (db: Kysely<DatabaseSchema>, table: string, except?: RawBuilder<boolean>): Promise<number> => {
  const where = except ? sql`where not (${except})` : sql``;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} ${where}`.execute(
    db,
  );
  return Number(rows[0]!.n);
};

/** Writes one batch: inserted, or for a seeded table upserted over the rows its migration wrote. */
async function writeBatch(target: Transaction<DatabaseSchema>, table: keyof DatabaseSchema, rows: Row[]) {
  const insert = (target as unknown as AnyDb).insertInto(table).values(rows);
  const seeded = TABLES[table].seeded;
  if (!seeded) return insert.execute();
  const columns = Object.keys(rows[0]!).filter((column) => column !== seeded.key);
  return insert
    .onConflict((conflict) =>
      conflict
        .column(seeded.key)
        .doUpdateSet(Object.fromEntries(columns.map((c) => [c, sql.ref(`excluded.${c}`)])) as never),
    )
    .execute();
}

/** The source's rows of `table` in rowid order, in batches (keyset pagination: each batch one indexed query). */
async function* sqliteBatches(db: Kysely<DatabaseSchema>, table: string) {
  const { rows: info } = await sql<{ n: number }>`select count(*) as n from pragma_table_info(${table})`.execute(db);
  const limit = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PARAMETERS / Math.max(1, info[0]!.n))));
  let after = 0;
  for (;;) {
    const { rows } = await sql<Row & { copy_rowid: number }>`
      select rowid as copy_rowid, * from ${sql.table(table)} where rowid > ${after} order by rowid limit ${limit}`.execute(
      db,
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.copy_rowid;
    yield rows.map(({ copy_rowid: _, ...row }) => row);
  }
}

/**
 * Identity and serial columns of the target, moved past both the copied rows' highest value and the highest SQLite's
 * AUTOINCREMENT ever gave out (sqlite_sequence), so the next row never takes a seq already used.
 */
async function advanceSequences(source: Kysely<DatabaseSchema>, target: Transaction<DatabaseSchema>): Promise<void> {
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and (is_identity = 'YES' or column_default like 'nextval(%')`.execute(target);
  const { rows: marks } = await sql<{ name: string; seq: number }>`select name, seq from sqlite_sequence`
    .execute(source)
    .catch(() => ({ rows: [] as { name: string; seq: number }[] }));
  for (const { table_name: table, column_name: column } of columns) {
    if (MIGRATOR_TABLES.has(table)) continue;
    const mark = marks.find((m) => m.name === table)?.seq ?? 0;
    // As if the rows had been inserted here: last value the highest given out, called (a table never written: 1, not
    // called), so a repository reading the sequence's state sees what SQLite's counter said.
    await sql`
      select setval(pg_get_serial_sequence(${table}, ${column}), greatest(m.used, 1), m.used > 0)
      from (select greatest(coalesce(max(${sql.ref(column)}), 0), ${mark}::bigint) as used
            from ${sql.table(table)}) as m`.execute(target);
  }
}

/** One table's rows, as counted in the source and in the target after the copy. */
export interface CopiedTable {
  readonly table: string;
  readonly rows: number;
}

/**
 * Copies every row of the SQLite database `source` into the migrated, empty PostgreSQL database `target`, in one
 * PostgreSQL transaction (all or nothing) and batches, with the target's tables locked against writers; then checks
 * each table's row count on both sides, and returns them.
 */
export async function copyDatabase(
  source: Kysely<DatabaseSchema>,
  target: Kysely<DatabaseSchema>,
): Promise<CopiedTable[]> {
  if (isPostgres(source as Kysely<unknown>)) throw new DatabaseCopyRefused("the source must be a SQLite database");
  if (!isPostgres(target as Kysely<unknown>)) throw new DatabaseCopyRefused("the target must be a PostgreSQL database");
  checkTables("source", await sqliteTables(source));
  // A read transaction on the source: every table read from one snapshot (a service still running cannot split it).
  return source.transaction().execute(async (src) =>
    target.transaction().execute(async (dst) => {
      checkTables("target", await postgresTables(dst));
      await sql`lock table ${sql.join(COPIED_TABLES.map((t) => sql.table(t)))} in exclusive mode`.execute(dst);
      for (const table of COPIED_TABLES) {
        const present = await countRows(dst, table, TABLES[table].seeded?.untouched);
        if (present > 0) {
          throw new DatabaseCopyRefused(
            `the target is not empty: ${table} has ${present} row(s); copy into a new database`,
          );
        }
      }
      const copied: CopiedTable[] = [];
      for (const table of COPIED_TABLES) {
        for await (const rows of sqliteBatches(src, table)) await writeBatch(dst, table, rows);
        const [inSource, inTarget] = [await countRows(src, table), await countRows(dst, table)];
        if (inSource !== inTarget) {
          throw new Error(`${table}: ${inSource} row(s) in the source but ${inTarget} in the target; nothing copied`);
        }
        copied.push({ table, rows: inTarget });
      }
      await advanceSequences(src, dst);
      return copied;
    }),
  );
}
