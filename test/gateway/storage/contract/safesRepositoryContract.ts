import { expect } from "chai";
import type { OpenTestDatabase } from "../builders";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { type NewSafe } from "../../../../gateway/safe/model/safeRecord";
import { SafeExistsError } from "../../../../gateway/safe/model/safesRepository";
import { SpendLimitExceededError } from "../../../../gateway/transactions/spendLimits";
import type { NewSafeTx, NewWalletTx } from "../../../../gateway/transactions/txRecord";

const NOW = new Date("2026-11-22T12:00:00Z");
const SAFE = "0x5AFE000000000000000000000000000000000001";

/** A fresh store with one app, and builders of Safes and requests for it. */
export async function freshSafesStore(open: OpenTestDatabase) {
  const database = await open();
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

/** What every SafesRepository does through the group commit, on a fresh migrated database per test from `open` (see the settings suite). */
export function safesRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: Safe accounts repository (through the group commit of every accepted request) (${dialect})`, () => {
    it("stores a Safe with its deployment request, and answers a retried Idempotency-Key with both", async () => {
      const { database, repos, newSafe, newTx } = await freshSafesStore(open);
      const first = await repos.safes.create(newSafe(), newTx(SAFE, { idempotencyKey: "k" }));
      const again = await repos.safes.create(newSafe(), newTx(SAFE, { idempotencyKey: "k" }));
      expect([first.created, again.created, again.record.id]).to.deep.equal([true, false, first.record.id]);
      expect(again.safe).to.deep.equal(first.safe);
      expect(first.safe).to.deep.include({ deploymentTxId: first.record.id, createdAt: first.record.createdAt });
      expect(await repos.safes.find("localhost", SAFE)).to.deep.equal(first.safe);
      await database.close();
    });

    it("joins wallet requests in arrival order: a key a wallet request took first is answered with that request", async () => {
      const { database, repos, newSafe, newTx, walletTx, queued } = await freshSafesStore(open);
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
      const { database, repos, newSafe, newTx, walletTx, queued } = await freshSafesStore(open);
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
  });
}
