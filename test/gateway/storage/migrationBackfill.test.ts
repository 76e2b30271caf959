import BetterSqlite3 from "better-sqlite3";
import { expect } from "chai";
import { Kysely, sql } from "kysely";
import { MIGRATIONS, runMigrations } from "../../../gateway/storage/migrations";
import { postgresKysely } from "../../../gateway/storage/sql/dialect/postgresConnection";
import { IdwalletSqliteDialect } from "../../../gateway/storage/sql/dialect/sqliteConnection";
import { freshPostgresDatabase } from "../../helpers/postgresServer";

const T0 = "2025-01-01T00:00:00.000Z";
const MINUTE = Date.parse(T0) / 60_000;
/** Past 2^32: a sum SQLite's 64-bit integer holds, and PostgreSQL's 32-bit integer would not. */
const BIG_GAS = 5_000_000_000;

/** Migrations up to and including `last`. */
const migrationsThrough = (last: string) =>
  Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name <= last));

/** A request as migration 009 left the table, accepted at `at`. */
async function insertRequest<DB>(
  db: Kysely<DB>,
  id: string,
  user: string,
  at: string,
  reserved: number,
  settled: number | null,
) {
  await sql`insert into transactions (id, app_id, account_type, user_id, chain, sender, calls, delegatecall, status,
      request_hash, next_attempt_at, created_at, updated_at, reserved_gas, settled_gas)
    values (${id}, 'app_1', 'kernel', ${user}, 'base', '0xs', '[]', 0, 'queued', 'h', ${at}, ${at}, ${at}, ${reserved},
      ${settled})`.execute(db);
}

/** Stores three requests under migration 009, applies the rest, and returns the spend buckets 010 filled. */
async function backfilledBuckets<DB>(db: Kysely<DB>) {
  await runMigrations(db, migrationsThrough("009_spent_gas"));
  await sql`insert into apps (id, name, client_id, secret_hash, status, created_at, updated_at, secret_rotated_at)
    values ('app_1', 'a', 'c', 'h', 'active', ${T0}, ${T0}, ${T0})`.execute(db);
  await insertRequest(db, "t1", "u1", "2025-01-01T00:00:30.000Z", 100, null);
  // The last millisecond of the first minute: still that minute (fractions of a second do not round up).
  await insertRequest(db, "t2", "u2", "2025-01-01T00:00:59.999Z", 50, 30);
  await insertRequest(db, "t3", "u1", "2025-01-01T00:01:00.000Z", BIG_GAS, null);
  await runMigrations(db);
  const { rows } = await sql<Record<string, unknown>>`
    select scope, user_id, minute, pending_gas, settled_gas from spend_buckets order by scope, user_id, minute`.execute(
    db,
  );
  return rows;
}

describe("storage: migration 010 fills the spend buckets alike on SQLite and PostgreSQL", () => {
  const expected = [
    { scope: "app", user_id: "", minute: MINUTE, pending_gas: 100, settled_gas: 30 },
    { scope: "app", user_id: "", minute: MINUTE + 1, pending_gas: BIG_GAS, settled_gas: 0 },
    { scope: "user", user_id: "u1", minute: MINUTE, pending_gas: 100, settled_gas: 0 },
    { scope: "user", user_id: "u1", minute: MINUTE + 1, pending_gas: BIG_GAS, settled_gas: 0 },
    { scope: "user", user_id: "u2", minute: MINUTE, pending_gas: 0, settled_gas: 30 },
  ];

  it("on SQLite", async () => {
    const db = new Kysely<unknown>({ dialect: new IdwalletSqliteDialect({ database: new BetterSqlite3(":memory:") }) });
    try {
      expect(await backfilledBuckets(db)).to.deep.equal(expected);
    } finally {
      await db.destroy();
    }
  });

  it("on PostgreSQL", async () => {
    const db = postgresKysely(await freshPostgresDatabase("backfill"));
    try {
      expect(await backfilledBuckets(db)).to.deep.equal(expected);
    } finally {
      await db.destroy();
    }
  });
});
