import { expect } from "chai";
import type { OpenTestDatabase } from "../builders";
import { createRepositories } from "../../../../gateway/storage/repositories";
import type { NewWalletTx } from "../../../../gateway/transactions/txRecord";

const NOW = new Date("2026-11-22T12:00:00Z");
const LATER = new Date("2026-11-22T13:00:00Z");

async function fresh(open: OpenTestDatabase) {
  let now = NOW;
  const database = await open();
  const repos = createRepositories(database.db, () => now);
  const { app } = await repos.apps.create({ name: "acme" });
  const newTx = (sender: string, extra: Partial<NewWalletTx> = {}): NewWalletTx => ({
    appId: app.id,
    accountType: "kernel",
    userId: "acme:alice",
    chain: "localhost",
    sender,
    calls: [{ to: sender, value: 1n, data: "0x" }],
    delegatecall: false,
    idempotencyKey: undefined,
    requestHash: "h",
    ...extra,
  });
  const tick = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  return { database, repos, newTx, tick };
}

/** What every TransactionsRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function transactionsRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: transactions repository (${dialect})`, () => {
    it("commits requests arriving together in one group, each answered, an Idempotency-Key stored once", async () => {
      const { database, repos, newTx } = await fresh(open);
      const results = await Promise.all([
        repos.transactions.create(newTx("0xA")),
        repos.transactions.create(newTx("0xB", { idempotencyKey: "k" })),
        repos.transactions.create(newTx("0xB", { idempotencyKey: "k" })),
      ]);
      expect(results.map((r) => r.created)).to.deep.equal([true, true, false]);
      expect(results[2]!.record.id).to.equal(results[1]!.record.id);
      expect(await repos.transactions.countByStatus()).to.deep.equal([
        { chain: "localhost", status: "queued", count: 2 },
      ]);
      await database.close();
    });

    it("a request whose statement fails (a foreign key) is refused alone: the rest of its group commits", async () => {
      const { database, repos, newTx } = await fresh(open);
      const outcomes = await Promise.allSettled([
        repos.transactions.create(newTx("0xA")),
        repos.transactions.create(newTx("0xB", { appId: "app_unknown" })),
        repos.transactions.create(newTx("0xC", { idempotencyKey: "k" })),
        repos.transactions.create(newTx("0xC", { idempotencyKey: "k" })),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
      expect(String((outcomes[1] as PromiseRejectedResult).reason)).to.match(/foreign key/i);
      const rows = await database.db.selectFrom("transactions").select("sender").orderBy("sender").execute();
      expect(rows.map((row) => row.sender)).to.deep.equal(["0xA", "0xC"]);
      await database.close();
    });

    it("hands out the oldest due request of each wallet, so one wallet's backlog does not crowd others out", async () => {
      const { database, repos, newTx, tick } = await fresh(open);
      for (let i = 0; i < 5; i++) {
        await repos.transactions.create(newTx("0xBusy"));
        tick(1000);
      }
      const quiet = (await repos.transactions.create(newTx("0xQuiet"))).record;
      const due = await repos.transactions.due("localhost", LATER, 2);
      expect(due.map((tx) => tx.sender)).to.deep.equal(["0xBusy", "0xQuiet"]);
      expect(due[1]!.id).to.equal(quiet.id);
      await database.close();
    });

    it("hands out nothing of a wallet whose earlier request is in flight, which the next one must follow", async () => {
      const { database, repos, newTx, tick } = await fresh(open);
      const first = (await repos.transactions.create(newTx("0xBusy"))).record;
      const other = (await repos.transactions.create(newTx("0xOther"))).record;
      tick(1000);
      const second = (await repos.transactions.create(newTx("0xBusy"))).record;
      const word = `0x${"00".repeat(32)}`;
      await repos.transactions.markSubmitted({
        txId: first.id,
        userOpHash: `0x${"11".repeat(32)}`,
        userOp: {
          sender: "0xBusy",
          nonce: 0n,
          initCode: "0x",
          callData: "0x",
          accountGasLimits: word,
          preVerificationGas: 0n,
          gasFees: word,
          paymasterAndData: "0x",
          signature: "0x",
        },
      });
      expect((await repos.transactions.due("localhost", LATER, 10)).map((tx) => tx.id)).to.deep.equal([other.id]);
      await repos.transactions.settle(first.id, {
        status: "included",
        transactionHash: word,
        blockNumber: 1,
        success: true,
      });
      expect((await repos.transactions.due("localhost", LATER, 10)).map((tx) => tx.id)).to.deep.equal([
        other.id,
        second.id,
      ]);
      await database.close();
    });

    it("leaves out the wallets being sent, and still gives up to the limit of the others", async () => {
      const { database, repos, newTx, tick } = await fresh(open);
      const ids: Record<string, string> = {};
      for (const sender of ["0xA", "0xB", "0xC", "0xD"]) {
        ids[sender] = (await repos.transactions.create(newTx(sender))).record.id;
        tick(1000);
      }
      const due = await repos.transactions.due("localhost", LATER, 2, new Set(["0xA", "0xC"]));
      expect(due.map((tx) => tx.id)).to.deep.equal([ids["0xB"], ids["0xD"]]);
      expect((await repos.transactions.due("localhost", LATER, 2, new Set())).map((tx) => tx.id)).to.deep.equal([
        ids["0xA"],
        ids["0xB"],
      ]);
      await database.close();
    });

    it("keeps a wallet's requests in order: a newer one waits while an older one waits for its retry", async () => {
      const { database, repos, newTx, tick } = await fresh(open);
      const older = (await repos.transactions.create(newTx("0xW"))).record;
      tick(1000);
      const newer = (await repos.transactions.create(newTx("0xW"))).record;
      await repos.transactions.settle(older.id, { status: "queued", nextAttemptAt: LATER });
      expect(await repos.transactions.due("localhost", NOW, 10)).to.have.length(0);
      expect((await repos.transactions.due("localhost", LATER, 10)).map((tx) => tx.id)).to.deep.equal([older.id]);
      expect(newer.status).to.equal("queued");
      await database.close();
    });

    it("never rewrites a final state, and parks a request to be closed when due", async () => {
      const { database, repos, newTx } = await fresh(open);
      const a = (await repos.transactions.create(newTx("0xA"))).record;
      await repos.transactions.settle(a.id, { status: "failed", error: { code: "X", message: "x" } });
      await repos.transactions.settle(a.id, { status: "queued", nextAttemptAt: NOW });
      expect((await repos.transactions.find(a.id))!.status).to.equal("failed");

      const b = (await repos.transactions.create(newTx("0xB"))).record;
      await repos.transactions.settle(b.id, {
        status: "queued",
        nextAttemptAt: LATER,
        error: { code: "SPONSORSHIP_EXPIRED", message: "AA32" },
        closeWhenDue: true,
      });
      const parked = (await repos.transactions.find(b.id))!;
      expect(parked).to.deep.include({ status: "queued", nextAttemptAt: LATER.toISOString() });
      expect(parked.attempts).to.be.greaterThan(100);
      expect(await repos.transactions.due("localhost", NOW, 10)).to.have.length(0);
      await database.close();
    });
  });
}
