import { expect } from "chai";
import type { OpenTestDatabase } from "../builders";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { type SpendLimit, SpendLimitExceededError } from "../../../../gateway/transactions/spendLimits";
import type { NewWalletTx } from "../../../../gateway/transactions/txRecord";

const NOW = new Date("2026-11-22T12:00:00Z");
const RESERVED = 6_000_000n;
// Room for two reservations, and for a third once one of them settled at its (far smaller) real cost.
const BUDGET: SpendLimit = { rule: "budget", limitGas: 2n * RESERVED + 200_000n, periodSeconds: 3600 };

async function fresh(open: OpenTestDatabase) {
  let now = NOW;
  const database = await open();
  const repos = createRepositories(database.db, () => now);
  const { app } = await repos.apps.create({ name: "acme" });
  let n = 0;
  const newTx = (extra: Partial<NewWalletTx> = {}): NewWalletTx => ({
    appId: app.id,
    accountType: "kernel",
    userId: "acme:alice",
    chain: "localhost",
    sender: `0x${(++n).toString(16).padStart(40, "0")}`,
    calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 0n, data: "0x" }],
    delegatecall: false,
    idempotencyKey: undefined,
    requestHash: "h",
    reservedGas: RESERVED,
    ...extra,
  });
  const refusal = (tx: NewWalletTx, limits = [BUDGET]) =>
    repos.transactions.create(tx, limits).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof SpendLimitExceededError) return error;
        throw error;
      },
    );
  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  return { database, repos, newTx, refusal, advance };
}

/** What spend limits and settlement do whatever the database, on a fresh migrated database per test from `open` (see the settings suite). */
export function spendLimitsContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: spend limits and settlement (${dialect})`, () => {
    it("reserves each request's worst case and, once included, counts what it did cost instead", async () => {
      const { database, repos, newTx, refusal } = await fresh(open);
      const first = await repos.transactions.create(newTx(), [BUDGET]);
      await repos.transactions.create(newTx(), [BUDGET]);
      const full = await refusal(newTx());
      expect(full).to.include({ usedGas: 2n * RESERVED, requestGas: RESERVED });
      expect(full!.freesAt!.toISOString()).to.equal("2026-11-22T13:00:00.000Z");

      await repos.transactions.settle(first.record.id, { status: "included", success: true, gasUsed: 150_000n });
      expect((await repos.transactions.find(first.record.id))!.settledGas).to.equal(150_000n);
      expect(await refusal(newTx())).to.equal(undefined);
      const again = await refusal(newTx());
      expect(again!.usedGas).to.equal(150_000n + 2n * RESERVED);
      await database.close();
    });

    it("settles a failed request that never ran to nothing, and an included one of unknown cost to its reservation", async () => {
      const { database, repos, newTx } = await fresh(open);
      const failed = await repos.transactions.create(newTx(), [BUDGET]);
      const untraced = await repos.transactions.create(newTx(), [BUDGET]);
      await repos.transactions.settle(failed.record.id, { status: "failed", error: { code: "AA21", message: "x" } });
      await repos.transactions.settle(untraced.record.id, {
        status: "included",
        error: { code: "EXECUTED_UNTRACED", message: "x" },
      });
      expect((await repos.transactions.find(failed.record.id))!.settledGas).to.equal(0n);
      expect((await repos.transactions.find(untraced.record.id))!.settledGas).to.equal(RESERVED);
      await database.close();
    });

    it("rolls the window: what a settled request cost longer than a period ago counts no more", async () => {
      const { database, repos, newTx, refusal, advance } = await fresh(open);
      const first = await repos.transactions.create(newTx(), [BUDGET]);
      advance(30 * 60_000);
      await repos.transactions.create(newTx(), [BUDGET]);
      await repos.transactions.settle(first.record.id, { status: "included", success: true, gasUsed: RESERVED });
      expect(await refusal(newTx())).to.be.instanceOf(SpendLimitExceededError);
      advance(30 * 60_000 + 1);
      expect(await refusal(newTx())).to.equal(undefined);
      await database.close();
    });

    it("counts a reservation still pending after its period until it settles", async () => {
      const { database, repos, newTx, refusal, advance } = await fresh(open);
      const first = await repos.transactions.create(newTx(), [BUDGET]);
      await repos.transactions.create(newTx(), [BUDGET]);
      advance(2 * 3600_000);
      const held = await refusal(newTx());
      expect(held).to.include({ usedGas: 2n * RESERVED });
      expect(held!.freesAt).to.equal(undefined);
      await repos.transactions.settle(first.record.id, { status: "failed", error: { code: "AA21", message: "x" } });
      expect(await refusal(newTx())).to.equal(undefined);
      await database.close();
    });

    it("refuses only the request of a group commit that does not fit, and stores the others", async () => {
      const { database, repos, newTx } = await fresh(open);
      const results = await Promise.allSettled([1, 2, 3].map(() => repos.transactions.create(newTx(), [BUDGET])));
      expect(results.map((r) => r.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected"]);
      expect(await repos.transactions.countByStatus()).to.deep.equal([
        { chain: "localhost", status: "queued", count: 2 },
      ]);
      await database.close();
    });

    it("keeps a user id's cap apart from the app's other user ids", async () => {
      const { database, newTx, refusal } = await fresh(open);
      const cap: SpendLimit = { rule: "userDailyCap", limitGas: RESERVED, periodSeconds: 86_400 };
      expect(await refusal(newTx(), [cap])).to.equal(undefined);
      expect((await refusal(newTx(), [cap]))!.limit.rule).to.equal("userDailyCap");
      expect(await refusal(newTx({ userId: "acme:bob" }), [cap])).to.equal(undefined);
      await database.close();
    });

    it("counts an app's requests per window in the database", async () => {
      const { database, repos } = await fresh(open);
      const { app } = await repos.apps.create({ name: "other" });
      const minute = new Date("2026-11-22T12:00:00Z");
      expect([await repos.rateWindows.hit(app.id, minute), await repos.rateWindows.hit(app.id, minute)]).to.deep.equal([
        1, 2,
      ]);
      expect(await repos.rateWindows.hit(app.id, new Date("2026-11-22T12:01:00Z"))).to.equal(1);
      await database.close();
    });
  });
}
