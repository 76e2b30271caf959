import { expect } from "chai";
import { type ColumnMetadata, type Kysely, sql } from "kysely";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";

/**
 * Each table's columns as `name type null|not-null|key`, the type named the SQLite way so both dialects compare.
 * Primary key columns say `key`: SQLite lets a text primary key be null (a historical quirk), PostgreSQL does not.
 * Which text columns are `timestamptz` and which real ones `numeric` is pinned below; a float (`float8`, `float4`)
 * has no SQLite name here, so one fails the comparison.
 */
async function columnsOf<DB>(db: Kysely<DB>, primaryKeys: ReadonlySet<string>): Promise<Record<string, string[]>> {
  const asSqlite: Record<string, string> = {
    int4: "integer",
    int8: "integer",
    numeric: "real",
    text: "text",
    timestamptz: "text",
  };
  const tables = await db.introspection.getTables();
  const describe = (table: string, column: ColumnMetadata) => {
    const type = asSqlite[column.dataType] ?? column.dataType.toLowerCase();
    const nullable = primaryKeys.has(`${table}.${column.name}`) ? "key" : column.isNullable ? "null" : "not-null";
    return `${column.name} ${type} ${nullable}`;
  };
  return Object.fromEntries(
    tables.map((table) => [table.name, table.columns.map((column) => describe(table.name, column)).sort()]).sort(),
  );
}

const keySet = (rows: ReadonlyArray<{ t: string; c: string }>) => new Set(rows.map((row) => `${row.t}.${row.c}`));

const sqlitePrimaryKeys = async <DB>(db: Kysely<DB>) =>
  keySet(
    (
      await sql<{ t: string; c: string }>`select m.name as t, p.name as c
        from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and p.pk > 0`.execute(db)
    ).rows,
  );

const postgresPrimaryKeys = async <DB>(db: Kysely<DB>) =>
  keySet(
    (
      await sql<{ t: string; c: string }>`select k.table_name as t, k.column_name as c
        from information_schema.table_constraints tc join information_schema.key_column_usage k
          on k.constraint_name = tc.constraint_name and k.table_name = tc.table_name
        where tc.constraint_type = 'PRIMARY KEY' and tc.table_schema = 'public'`.execute(db)
    ).rows,
  );

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
}

/** Every column of the service's tables (schema public), sorted. */
const publicColumns = async <DB>(db: Kysely<DB>) =>
  (
    await sql<ColumnRow>`select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' and table_name not like 'kysely\_%' order by 1, 2`.execute(db)
  ).rows;

const qualified = (column: ColumnRow) => `${column.table_name}.${column.column_name}`;

/** A signature_audit row as the repository appends it (it numbers the rows itself). */
const auditRow = { at: "2025-01-01T00:00:00.000Z", purpose: "p", signer: "s", digest: "d", signature: "x" };

describe("storage: migrations on PostgreSQL", () => {
  let postgres: Database;
  let sqlite: Database;
  before(async function () {
    this.timeout(60_000);
    postgres = await openDatabase(await freshPostgresDatabase("migrations"));
    sqlite = await openDatabase(":memory:");
  });
  after(async () => {
    await postgres?.close();
    await sqlite?.close();
  });

  it("creates every table and column SQLite has, with the same types and nullability", async () => {
    const onPostgres = await columnsOf(postgres.db, await postgresPrimaryKeys(postgres.db));
    expect(Object.keys(onPostgres)).to.include.members(["apps", "transactions", "signature_audit", "spend_buckets"]);
    expect(onPostgres).to.deep.equal(await columnsOf(sqlite.db, await sqlitePrimaryKeys(sqlite.db)));
  });

  it("keeps 64-bit integers 64-bit and reads them back as numbers", async () => {
    const { rows } = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns where data_type = 'bigint' order by 1, 2`.execute(
      postgres.db,
    );
    const bigints = rows.map((row) => `${row.table_name}.${row.column_name}`);
    expect(bigints).to.include.members([
      "bundles.nonce",
      "transactions.reserved_gas",
      "spend_buckets.pending_gas",
      "signature_audit.seq",
    ]);
    const { rows: big } = await sql<{ n: unknown }>`select cast(${2 ** 40} as bigint) as n`.execute(postgres.db);
    expect(big[0]?.n).to.equal(2 ** 40);
  });

  it("makes every point in time a timestamptz, and nothing else", async () => {
    const columns = await publicColumns(postgres.db);
    // A point in time is named for it: `…_at` (created_at, expires_at, …), the audit log's `at`, a window's `…_start`.
    const named = columns.filter((c) => /(^|_)at$|_start$/.test(c.column_name)).map(qualified);
    const timestamptz = columns.filter((c) => c.data_type === "timestamp with time zone").map(qualified);
    expect(timestamptz).to.deep.equal(named);
    expect(named).to.include.members(["apps.created_at", "signature_audit.at", "app_rate_windows.window_start"]);
    // A minute number stays an integer.
    expect(columns.find((c) => qualified(c) === "spend_buckets.minute")?.data_type).to.equal("bigint");
  });

  it("keeps no float column: the dust sweep's USD amounts are numeric", async () => {
    const columns = await publicColumns(postgres.db);
    expect(columns.filter((c) => /real|double/.test(c.data_type)).map(qualified)).to.deep.equal([]);
    expect(columns.filter((c) => c.data_type === "numeric").map(qualified)).to.deep.equal([
      "dust_orders.eth_price",
      "dust_orders.usd_value",
    ]);
  });

  it("reads a timestamptz as the ISO text in any session time zone, and refuses one no Date holds", async () => {
    const read = (literal: string) =>
      postgres.db.transaction().execute(async (trx) => {
        await sql`set local time zone 'Asia/Kathmandu'`.execute(trx);
        const { rows } = await sql<{ t: unknown }>`select cast(${literal} as timestamptz) as t`.execute(trx);
        return rows[0]?.t;
      });
    expect(await read("2025-01-01T00:00:00.010Z")).to.equal("2025-01-01T00:00:00.010Z");
    expect(await read("2025-01-01 05:45:00.5+05:45")).to.equal("2025-01-01T00:00:00.500Z");
    // Microseconds, which the service never writes, are cut to the millisecond, as Date cuts them.
    expect(await read("2025-01-01T00:00:00.123999Z")).to.equal("2025-01-01T00:00:00.123Z");
    expect(String(await read("infinity").catch((caught: unknown) => caught))).to.match(
      /no time a JavaScript Date holds/,
    );
  });

  it("refuses to edit, delete or truncate the signature audit log (migration 014)", async () => {
    const { seq } = await postgres.db
      .insertInto("signature_audit")
      .values({ ...auditRow, seq: 1, prev_hash: "0", hash: "1" })
      .returning("seq")
      .executeTakeFirstOrThrow();
    expect(seq).to.equal(1);
    const attempts = [
      () => postgres.db.updateTable("signature_audit").set({ signature: "forged" }).where("seq", "=", seq).execute(),
      () => postgres.db.deleteFrom("signature_audit").where("seq", "=", seq).execute(),
      () => sql`truncate signature_audit`.execute(postgres.db),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(String(error)).to.match(/append-only/);
    }
    const rows = await postgres.db.selectFrom("signature_audit").select(["seq", "signature"]).execute();
    expect(rows).to.deep.equal([{ seq: 1, signature: "x" }]);
  });

  it("enforces SQLite's check constraints too", async () => {
    const now = "2025-01-01T00:00:00.000Z";
    const app = {
      name: "a",
      client_id: "c",
      secret_hash: "h",
      created_at: now,
      updated_at: now,
      secret_rotated_at: now,
    };
    const error = await postgres.db
      .insertInto("apps")
      .values({
        ...app,
        id: "app_1",
        status: "paused" as "active",
        test_mode: 0,
        delegatecall_granted: 0,
        safe_config_granted: 0,
        secret_generation: 0,
      })
      .execute()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(String(error)).to.match(/apps_status_check/);
    const grant = await postgres.db
      .insertInto("apps")
      .values({
        ...app,
        id: "app_2",
        status: "active",
        test_mode: 0,
        delegatecall_granted: 0,
        safe_config_granted: 2 as 1,
        secret_generation: 0,
      })
      .execute()
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(String(error)).to.match(/check/);
    expect(String(grant)).to.match(/safe_config_granted/);
  });
});
