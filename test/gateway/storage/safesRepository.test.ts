import { expect } from "chai";
import { sql } from "kysely";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { type NewSafe } from "../../../gateway/safe/safeRecord";
import { SafeExistsError } from "../../../gateway/storage/safesRepository";
import { SpendLimitExceededError } from "../../../gateway/policy/spendLimits";
import type { NewSafeTx, NewWalletTx } from "../../../gateway/transactions/txRecord";

const NOW = new Date("2026-11-22T12:00:00Z");
const SAFE = "0x5AFE000000000000000000000000000000000001";

async function fresh() {
  const database = await openDatabase(":memory:");
  const repos = createRepositories(database.db, () => NOW);
  const { app } = await repos.apps.create({ name: "acme" });
  const newSafe = (address = SAFE): NewSafe => ({
    chain: "localhost",
    address,
    appId: app.id,
    owners: ["0x00000000000000000000000000000000000000A1"],
    saltNonce: 7n,
    singleton: "0x1000000000000000000000000000000000000001",
    proxyFactory: "0x1000000000000000000000000000000000000002",
    fallbackHandler: "0x1000000000000000000000000000000000000003",
  });
  const newTx = (sender: string, extra: Partial<NewSafeTx> = {}): NewSafeTx => ({
    appId: app.id,
    accountType: "safe",
    chain: "localhost",
    sender,
    calls: [{ to: "0x1000000000000000000000000000000000000002", value: 0n, data: "0x" }],
    delegatecall: false,
    idempotencyKey: undefined,
    requestHash: "h",
    safeAction: "create",
    reservedGas: 100n,
    ...extra,
  });
  const walletTx = (sender: string, extra: Partial<NewWalletTx> = {}): NewWalletTx => {
    const { safeAction: _none, ...tx } = newTx(sender);
    return { ...tx, accountType: "kernel", userId: "acme:alice", ...extra };
  };
  const queued = async () => (await repos.transactions.countByStatus()).map((c) => c.count).reduce((a, b) => a + b, 0);
  return { database, repos, newSafe, newTx, walletTx, queued };
}

describe("storage: Safe accounts repository (through the group commit of every accepted request)", () => {
  it("stores a Safe with its deployment request, and answers a retried Idempotency-Key with both", async () => {
    const { database, repos, newSafe, newTx } = await fresh();
    const first = await repos.safes.create(newSafe(), newTx(SAFE, { idempotencyKey: "k" }));
    const again = await repos.safes.create(newSafe(), newTx(SAFE, { idempotencyKey: "k" }));
    expect([first.created, again.created, again.record.id]).to.deep.equal([true, false, first.record.id]);
    expect(again.safe).to.deep.equal(first.safe);
    expect(first.safe).to.deep.include({ deploymentTxId: first.record.id, createdAt: first.record.createdAt });
    expect(await repos.safes.find("localhost", SAFE)).to.deep.equal(first.safe);
    await database.close();
  });

  it("joins wallet requests in arrival order: a key a wallet request took first is answered with that request", async () => {
    const { database, repos, newSafe, newTx, walletTx, queued } = await fresh();
    const [wallet, safe] = await Promise.all([
      repos.transactions.create(walletTx("0xA", { idempotencyKey: "k" })),
      repos.safes.create(newSafe(), newTx(SAFE, { idempotencyKey: "k" })),
    ]);
    expect([wallet.created, safe.created, safe.record.id, safe.safe]).to.deep.equal([
      true,
      false,
      wallet.record.id,
      undefined,
    ]);
    expect(await repos.safes.find("localhost", SAFE)).to.equal(undefined);
    expect(await queued()).to.equal(1);
    await database.close();
  });

  it("refuses a Safe already recorded, or over a spend limit, alone: the rest of its group commits", async () => {
    const { database, repos, newSafe, newTx, walletTx, queued } = await fresh();
    const budget = [{ rule: "budget" as const, limitGas: 150n, periodSeconds: 3600 }];
    const outcomes = await Promise.allSettled([
      repos.safes.create(newSafe(), newTx(SAFE), budget),
      repos.safes.create(newSafe(), newTx(SAFE)),
      repos.safes.create(newSafe("0x5AFE000000000000000000000000000000000002"), newTx("0x5AFE02"), budget),
      repos.transactions.create(walletTx("0xB")),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).to.be.instanceOf(SafeExistsError);
    expect((outcomes[2] as PromiseRejectedResult).reason).to.be.instanceOf(SpendLimitExceededError);
    expect(await repos.safes.find("localhost", "0x5AFE000000000000000000000000000000000002")).to.equal(undefined);
    expect(await queued()).to.equal(2);
    await database.close();
  });

  it("storage full: each Safe of a group is stored with its deployment request, or neither is", async () => {
    const { database, repos, newSafe, newTx, walletTx } = await fresh();
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
