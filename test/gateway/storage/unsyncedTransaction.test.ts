import { expect } from "chai";
import { sql } from "kysely";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { unsyncedTransaction } from "../../../gateway/storage/sql/dialect/durability";

/** SQLite's `synchronous` setting as a number: 1 NORMAL, 2 FULL. */
async function synchronous(database: Database): Promise<number> {
  const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
  return rows[0]!.synchronous;
}

describe("storage: a transaction committed without waiting for the disk (SQLite)", () => {
  let dir: string;
  let database: Database;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-unsynced-"));
    database = await openDatabase(path.join(dir, "db.sqlite"));
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits its writes and leaves every later commit synced (FULL), after a failed one too", async () => {
    expect(await synchronous(database)).to.equal(2);
    const inside = await unsyncedTransaction(database.db, async (trx) => {
      await sql`insert into settings (key, value, updated_at) values ('k', '"v"', '2025-01-01T00:00:00.000Z')`.execute(
        trx,
      );
      return (await sql<{ synchronous: number }>`pragma synchronous`.execute(trx)).rows[0]!.synchronous;
    });
    expect(inside).to.equal(1);
    expect(await synchronous(database)).to.equal(2);
    const failing = unsyncedTransaction(database.db, async (trx) => {
      await sql`insert into settings (key, value, updated_at) values ('k2', '"v"', '2025-01-01T00:00:00.000Z')`.execute(
        trx,
      );
      throw new Error("refused");
    });
    const refusal = await failing.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).to.be.an("error").with.property("message", "refused");
    expect(await synchronous(database)).to.equal(2);
    const keys = await database.db.selectFrom("settings").select("key").execute();
    expect(keys.map((row) => row.key)).to.deep.equal(["k"]);
  });
});
