import { expect } from "chai";
import { sql } from "kysely";
import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { freshSafesStore, safesRepositoryContract } from "./contract/safesRepositoryContract";

safesRepositoryContract("SQLite", () => openDatabase(":memory:"));
safesRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("safes")));

// SQLite only: the disk fills through SQLite's max_page_count (PostgreSQL needs its own way to fill up).
describe("storage: Safe accounts repository on a full SQLite database", () => {
  it("storage full: each Safe of a group is stored with its deployment request, or neither is", async () => {
    const { database, repos, newSafe, newTx, walletTx } = await freshSafesStore(() => openDatabase(":memory:"));
    const { db } = database;
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 8}`).execute(db);
    // About 1 KB per wallet request, a Safe between two of them in each group, until the database can grow no more.
    const data = `0x${"ab".repeat(1000)}`;
    const createdSafes: string[] = [];
    let refused = 0;
    for (let round = 0; refused === 0; round++) {
      expect(round, "the database never filled up").to.be.below(100);
      const address = `0x5AFE${round.toString(16).padStart(36, "0")}`;
      const outcomes = await Promise.allSettled([
        repos.transactions.create(walletTx(`0xA${round}`, { calls: [{ to: "0xA", value: 0n, data }] })),
        repos.safes.create(newSafe(address), newTx(address)),
        repos.transactions.create(walletTx(`0xB${round}`, { calls: [{ to: "0xB", value: 0n, data }] })),
      ]);
      if (outcomes[1]!.status === "fulfilled") createdSafes.push(address);
      refused += outcomes.filter((o) => o.status === "rejected").length;
    }
    const count = async (table: "safes" | "transactions", where = sql`1 = 1`) =>
      (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(db)).rows[0]!.n;
    expect(createdSafes, "no Safe was stored before the database filled up").to.not.have.length(0);
    expect(await count("safes")).to.equal(createdSafes.length);
    expect(await count("transactions", sql`account_type = 'safe'`)).to.equal(createdSafes.length);
    for (const address of createdSafes) {
      const safe = (await repos.safes.find("localhost", address))!;
      expect((await repos.transactions.find(safe.deploymentTxId))?.sender).to.equal(address);
    }
    await database.close();
  });
});
