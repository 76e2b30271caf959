import { expect } from "chai";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../../../gateway/storage/database";
import { MigrationError } from "../../../gateway/storage/errors";
import { MIGRATIONS, runMigrations } from "../../../gateway/storage/migrations";
import { IdwalletSqliteDialect } from "../../../gateway/storage/sql/dialect/sqliteConnection";

const pragma = async <DB>(db: Kysely<DB>, name: string): Promise<unknown> => {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.raw(`pragma_${name}`)}`.execute(db);
  return rows[0] && Object.values(rows[0])[0];
};

const migrationRows = <DB>(db: Kysely<DB>) =>
  sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name`
    .execute(db)
    .then((result) => result.rows);

const tableNames = <DB>(db: Kysely<DB>) =>
  sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'kysely_%'`
    .execute(db)
    .then((result) => result.rows.map((row) => row.name).sort());

describe("storage: openDatabase", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-db-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("migrates a :memory: database before returning it", async () => {
    const { db, close } = await openDatabase(":memory:");
    try {
      expect(await tableNames(db)).to.deep.equal([
        "app_providers",
        "app_rate_windows",
        "apps",
        "bundles",
        // The operator console's links, sessions and action log (migration 024).
        "console_actions",
        "console_links",
        "console_sessions",
        "dust_orders",
        "dust_prices",
        "dust_tokens",
        "limit_counters",
        "otp_codes",
        "safes",
        "settings",
        "signature_audit",
        // The highest seq signature_audit gave out (migration 017).
        "signature_audit_mark",
        "spend_buckets",
        // SQLite's own (AUTOINCREMENT, migration 014); the repository reads the mark instead since migration 017.
        "sqlite_sequence",
        "transactions",
        "webhook_attempts",
        "webhook_deliveries",
        "webhook_endpoints",
        "webhook_events",
        "worker_leases",
      ]);
      expect((await migrationRows(db)).map((row) => row.name)).to.deep.equal(Object.keys(MIGRATIONS));
    } finally {
      await close();
    }
  });

  it("creates the parent directory and sets WAL, synchronous FULL, foreign keys and busy timeout", async () => {
    const file = path.join(dir, "nested", "deeper", "idwallet.sqlite");
    const { db, close } = await openDatabase(file);
    try {
      expect(existsSync(file)).to.equal(true);
      expect(await pragma(db, "journal_mode")).to.equal("wal");
      expect(await pragma(db, "synchronous")).to.equal(2); // FULL
      expect(await pragma(db, "foreign_keys")).to.equal(1);
      expect(await pragma(db, "busy_timeout")).to.equal(5000);
    } finally {
      await close();
    }
  });

  /** Runs `body` with the common umask 022, under which a file created without a mode is readable by everyone. */
  async function withUmask022<T>(body: () => Promise<T>): Promise<T> {
    const previous = process.umask(0o022);
    try {
      return await body();
    } finally {
      process.umask(previous);
    }
  }
  const modeOf = (file: string) => statSync(file).mode & 0o777;

  it("another local user cannot read the database: file, -wal and -shm 0600, a directory it creates 0700", async () => {
    const file = path.join(dir, "data", "idwallet.sqlite");
    await withUmask022(async () => {
      const { db, close } = await openDatabase(file);
      try {
        await db
          .insertInto("settings")
          .values({ key: "k", value: "v", updated_at: "2025-01-01T00:00:00.000Z" })
          .execute();
        expect(existsSync(`${file}-wal`) && existsSync(`${file}-shm`)).to.equal(true);
        expect([file, `${file}-wal`, `${file}-shm`].map(modeOf)).to.deep.equal([0o600, 0o600, 0o600]);
        expect(modeOf(path.dirname(file))).to.equal(0o700);
      } finally {
        await close();
      }
    });
  });

  it("narrows an existing database left readable by others (an older version's) to 0600, -wal and -shm included", async () => {
    const file = path.join(dir, "idwallet.sqlite");
    await withUmask022(async () => {
      const first = await openDatabase(file);
      await first.close();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) writeFileSync(f, "", { flag: "a" });
      for (const f of [file, `${file}-wal`, `${file}-shm`]) chmodSync(f, 0o644);
      const again = await openDatabase(file);
      try {
        expect([file, `${file}-wal`, `${file}-shm`].map(modeOf)).to.deep.equal([0o600, 0o600, 0o600]);
      } finally {
        await again.close();
      }
    });
  });

  it("keeps data across reopening and does not apply a migration twice", async () => {
    const file = path.join(dir, "idwallet.sqlite");
    const first = await openDatabase(file);
    await first.db
      .insertInto("settings")
      .values({ key: "k", value: "v", updated_at: "2025-01-01T00:00:00.000Z" })
      .execute();
    const appliedBefore = await migrationRows(first.db);
    await first.close();

    const second = await openDatabase(file);
    try {
      const row = await second.db.selectFrom("settings").selectAll().where("key", "=", "k").executeTakeFirst();
      expect(row?.value).to.equal("v");
      // Same rows, same timestamps: the second start recorded (and so ran) nothing.
      expect(await migrationRows(second.db)).to.deep.equal(appliedBefore);
    } finally {
      await second.close();
    }
  });

  it("fails fast, naming the migration, when a migration cannot run", async () => {
    const file = path.join(dir, "conflict.sqlite");
    // A table left by something else makes 001 fail with "table apps already exists".
    const raw = new BetterSqlite3(file);
    raw.exec("create table apps (x text)");
    raw.close();
    const error = await openDatabase(file).then(
      () => expect.fail("openDatabase should have rejected"),
      (caught: unknown) => caught,
    );
    expect(error).to.be.instanceOf(MigrationError);
    expect((error as MigrationError).migrationName).to.equal("001_apps_and_settings");
    expect((error as Error).message).to.match(/migration "001_apps_and_settings".*already exists/);
  });

  it("rolls back every pending migration of the batch when one fails", async () => {
    const db = new Kysely<unknown>({
      dialect: new IdwalletSqliteDialect({ database: new BetterSqlite3(":memory:") }),
    });
    try {
      const failing = {
        ...MIGRATIONS,
        "002_fails": {
          up: async (trx: Kysely<unknown>) => {
            await trx.schema.createTable("half_done").addColumn("x", "text").execute();
            throw new Error("boom");
          },
        },
      };
      const error = await runMigrations(db, failing).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(MigrationError);
      expect((error as Error).message)
        .to.include('"002_fails"')
        .and.include("boom");
      expect(await tableNames(db)).to.deep.equal([]);
      expect(await migrationRows(db)).to.deep.equal([]);
    } finally {
      await db.destroy();
    }
  });

  it("keeps every transaction request across 005's rebuild of the table, and then takes Safe requests", async () => {
    const db = new Kysely<unknown>({
      dialect: new IdwalletSqliteDialect({ database: new BetterSqlite3(":memory:") }),
    });
    try {
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < "005"));
      await runMigrations(db, before);
      const at = "2025-01-01T00:00:00.000Z";
      await sql`insert into apps (id, name, client_id, secret_hash, status, test_mode, created_at, updated_at, secret_rotated_at)
          values ('a', 'n', 'c', 'h', 'active', 0, ${at}, ${at}, ${at})`.execute(db);
      await sql`insert into transactions (id, app_id, account_type, user_id, chain, sender, calls, delegatecall, status,
          idempotency_key, request_hash, attempts, next_attempt_at, created_at, updated_at, success)
          values ('t1', 'a', 'kernel', 'tel:1', 'localhost', '0xS', '[]', 0, 'included', 'k', 'h', 1, ${at}, ${at}, ${at}, 1)`.execute(
        db,
      );
      await runMigrations(db, MIGRATIONS);
      const { rows } = await sql<
        Record<string, unknown>
      >`select id, status, idempotency_key, success, safe_action from transactions`.execute(db);
      expect(rows).to.deep.equal([
        { id: "t1", status: "included", idempotency_key: "k", success: 1, safe_action: null },
      ]);
      const safeRequest = (id: string, action: string | null) =>
        sql`insert into transactions (id, app_id, account_type, user_id, chain, sender, calls, delegatecall, status,
            request_hash, attempts, next_attempt_at, created_at, updated_at, safe_action)
            values (${id}, 'a', 'safe', '', 'localhost', '0xS', '[]', 0, 'queued', 'h', 0, ${at}, ${at}, ${at}, ${action})`.execute(
          db,
        );
      await safeRequest("t2", "disperse");
      // A Safe request names its action, and only Safe requests have one; the idempotency index survived.
      expect(
        await safeRequest("t3", null).then(
          () => "stored",
          () => "refused",
        ),
      ).to.equal("refused");
      expect(
        await safeRequest("t4", "burn").then(
          () => "stored",
          () => "refused",
        ),
      ).to.equal("refused");
      const duplicateKey =
        sql`insert into transactions (id, app_id, account_type, user_id, chain, sender, calls, delegatecall,
          status, idempotency_key, request_hash, attempts, next_attempt_at, created_at, updated_at)
          values ('t5', 'a', 'kernel', 'tel:1', 'localhost', '0xS', '[]', 0, 'queued', 'k', 'h', 0, ${at}, ${at}, ${at})`.execute(
          db,
        );
      expect(
        await duplicateKey.then(
          () => "stored",
          () => "refused",
        ),
      ).to.equal("refused");
    } finally {
      await db.destroy();
    }
  });

  it("leaves every app registered before 007 without the delegatecall grant", async () => {
    const db = new Kysely<unknown>({
      dialect: new IdwalletSqliteDialect({ database: new BetterSqlite3(":memory:") }),
    });
    try {
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < "007"));
      await runMigrations(db, before);
      const at = "2025-01-01T00:00:00.000Z";
      await sql`insert into apps (id, name, client_id, secret_hash, status, test_mode, created_at, updated_at, secret_rotated_at)
          values ('a', 'n', 'c', 'h', 'active', 1, ${at}, ${at}, ${at})`.execute(db);
      await runMigrations(db, MIGRATIONS);
      const { rows } = await sql<Record<string, unknown>>`select id, delegatecall_granted from apps`.execute(db);
      expect(rows).to.deep.equal([{ id: "a", delegatecall_granted: 0 }]);
      const badGrant = await sql`update apps set delegatecall_granted = 2`.execute(db).catch((e: unknown) => e);
      expect(String(badGrant)).to.match(/CHECK constraint failed/);
    } finally {
      await db.destroy();
    }
  });

  it("013 starts an app whose secret was rotated before it at generation 1, so that secret's tokens stay revoked", async () => {
    const db = new Kysely<unknown>({
      dialect: new IdwalletSqliteDialect({ database: new BetterSqlite3(":memory:") }),
    });
    try {
      const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < "013"));
      await runMigrations(db, before);
      const at = "2025-01-01T00:00:00.000Z";
      const later = "2025-02-01T00:00:00.000Z";
      await sql`insert into apps (id, name, client_id, secret_hash, status, test_mode, created_at, updated_at, secret_rotated_at)
          values ('never', 'n', 'c1', 'h', 'active', 0, ${at}, ${at}, ${at}),
                 ('rotated', 'n', 'c2', 'h', 'active', 0, ${at}, ${later}, ${later})`.execute(db);
      await runMigrations(db, MIGRATIONS);
      const { rows } = await sql<Record<string, unknown>>`select id, secret_generation from apps order by id`.execute(
        db,
      );
      expect(rows).to.deep.equal([
        { id: "never", secret_generation: 0 },
        { id: "rotated", secret_generation: 1 },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it("refuses rows that break the schema's constraints", async () => {
    const { db, close } = await openDatabase(":memory:");
    const at = "2025-01-01T00:00:00.000Z";
    // Raw SQL: the typed query builder would not even let these values compile.
    const insert = (id: string, clientId: string, status: string, testMode: number) =>
      sql`insert into apps (id, name, client_id, secret_hash, status, test_mode, created_at, updated_at, secret_rotated_at)
          values (${id}, 'n', ${clientId}, 'h', ${status}, ${testMode}, ${at}, ${at}, ${at})`
        .execute(db)
        .then(
          () => "inserted",
          (error: Error) => error.message,
        );
    try {
      expect(await insert("app_1", "cid_1", "active", 0)).to.equal("inserted");
      expect(await insert("app_2", "cid_2", "deleted", 0)).to.match(/CHECK constraint failed: apps_status_check/);
      expect(await insert("app_3", "cid_3", "active", 2)).to.match(/CHECK constraint failed: apps_test_mode_check/);
      expect(await insert("app_4", "cid_1", "active", 0)).to.match(/UNIQUE constraint failed: apps.client_id/);
    } finally {
      await close();
    }
  });

  it("takes the write lock when a transaction begins, so concurrent writers wait instead of failing", async () => {
    const file = path.join(dir, "locks.sqlite");
    const { db, close } = await openDatabase(file);
    const other = new BetterSqlite3(file, { timeout: 0 });
    try {
      await db.transaction().execute(async (trx) => {
        // Only a read so far: a deferred `begin` would not hold the write lock yet.
        await trx.selectFrom("apps").selectAll().execute();
        expect(() => other.exec("begin immediate")).to.throw(/database is locked/);
      });
      other.exec("begin immediate; rollback");
    } finally {
      other.close();
      await close();
    }
  });

  it("closes the handle", async () => {
    const { db, close } = await openDatabase(":memory:");
    await close();
    const error = await db
      .selectFrom("apps")
      .selectAll()
      .execute()
      .catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(Error);
  });
});
