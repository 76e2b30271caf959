import { expect } from "chai";
import { openDatabase, type Database } from "../../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import { type SpendLimit, SpendLimitExceededError } from "../../../../gateway/transactions/spendLimits";
import { SafeExistsError } from "../../../../gateway/safe/model/safesRepository";
import type { NewSafeTx, NewWalletTx } from "../../../../gateway/transactions/txRecord";

const NOW = new Date("2026-11-22T12:00:00Z");
const SAFE = "0x5AFE000000000000000000000000000000000001";

/** Where two instances meet: a SQLite file or a PostgreSQL URL, new per test. */
export type SharedLocation = () => Promise<string>;

/** Two service instances over one database: each its own `openDatabase` (its own connection or pool) and repositories. */
export async function twoInstances(location: SharedLocation) {
  const where = await location();
  const databases: Database[] = [await openDatabase(where), await openDatabase(where)];
  const [a, b] = databases.map((database) => createRepositories(database.db, () => NOW)) as [
    Repositories,
    Repositories,
  ];
  const close = () => Promise.all(databases.map((database) => database.close()));
  return { a, b, db: databases[0]!.db, close };
}

/** Settles every promise, split into what each one gave and what each refused. */
async function settled<T>(promises: Promise<T>[]): Promise<{ values: T[]; errors: unknown[] }> {
  const outcomes = await Promise.allSettled(promises);
  return {
    values: outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : [])),
    errors: outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : [])),
  };
}

/**
 * Several instances accepting requests at once over one database. SQLite serializes every write transaction with its
 * write lock; PostgreSQL lets them run together, so each check-then-write of the accept path must hold on both.
 */
export function concurrentAcceptContract(dialect: string, location: SharedLocation): void {
  describe(`storage: two instances accepting at once (${dialect})`, () => {
    let instances: Awaited<ReturnType<typeof twoInstances>>;
    let newTx: (n: number, extra?: Partial<NewWalletTx>) => NewWalletTx;
    let appId: string;
    beforeEach(async () => {
      instances = await twoInstances(location);
      appId = (await instances.a.apps.create({ name: "acme" })).app.id;
      newTx = (n, extra = {}) => ({
        appId,
        accountType: "kernel",
        userId: `acme:user${n % 3}`,
        chain: "localhost",
        sender: `0x${(n + 1).toString(16).padStart(40, "0")}`,
        calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 0n, data: "0x" }],
        delegatecall: false,
        idempotencyKey: undefined,
        requestHash: "h",
        reservedGas: 1_000n,
        ...extra,
      });
    });
    afterEach(() => instances.close());

    it("a client retrying one Idempotency-Key on both instances at once: one request stored, every retry answered with it", async () => {
      const { a, b, db } = instances;
      const tx = newTx(0, { idempotencyKey: "pay-once" });
      const { values, errors } = await settled(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).transactions.create(tx)),
      );
      expect(errors, String(errors[0])).to.deep.equal([]);
      expect(values.filter((v) => v.created)).to.have.length(1);
      expect(new Set(values.map((v) => v.record.id)).size).to.equal(1);
      const rows = await db.selectFrom("transactions").select("id").execute();
      expect(rows).to.have.length(1);
    });

    it("an app bursting requests at two instances at once cannot spend past its budget or a user's cap", async () => {
      const { a, b, db } = instances;
      const budget: SpendLimit = { rule: "budget", limitGas: 10_000n, periodSeconds: 3600 };
      const userCap: SpendLimit = { rule: "userDailyCap", limitGas: 3_000n, periodSeconds: 86_400 };
      const { values, errors } = await settled(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).transactions.create(newTx(i), [budget, userCap])),
      );
      expect(
        errors.every((e) => e instanceof SpendLimitExceededError),
        String(errors[0]),
      ).to.equal(true);
      // Three users at 3 requests each (their cap) is 9 requests: all of them, and none more.
      expect(values).to.have.length(9);
      const perUser = await db
        .selectFrom("transactions")
        .select(["user_id", (eb) => eb.fn.countAll<number>().as("n")])
        .groupBy("user_id")
        .orderBy("user_id")
        .execute();
      expect(perUser.map((row) => Number(row.n))).to.deep.equal([3, 3, 3]);
    });

    it("two instances filling one budget: the total reserved never passes it", async () => {
      const { a, b, db } = instances;
      const budget: SpendLimit = { rule: "budget", limitGas: 10_000n, periodSeconds: 3600 };
      for (let wave = 0; wave < 3; wave++) {
        await settled(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? a : b).transactions.create(newTx(wave * 20 + i), [budget]),
          ),
        );
      }
      const rows = await db.selectFrom("transactions").select("reserved_gas").execute();
      expect(rows.reduce((sum, row) => sum + Number(row.reserved_gas), 0)).to.equal(10_000);
    });

    it("the same Safe asked of both instances at once: recorded once, every other ask refused as already recorded", async () => {
      const { a, b, db } = instances;
      const safeTx = (n: number): NewSafeTx => {
        const { userId: _user, ...wallet } = newTx(n);
        return { ...wallet, accountType: "safe", sender: SAFE, safeAction: "create" };
      };
      const newSafe = {
        chain: "localhost",
        address: SAFE,
        appId,
        owners: ["0x00000000000000000000000000000000000000A1"],
        saltNonce: 7n,
        singleton: "0x1000000000000000000000000000000000000001",
        proxyFactory: "0x1000000000000000000000000000000000000002",
        fallbackHandler: "0x1000000000000000000000000000000000000003",
      };
      const { values, errors } = await settled(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).safes.create(newSafe, safeTx(i))),
      );
      expect(values).to.have.length(1);
      expect(
        errors.every((e) => e instanceof SafeExistsError),
        String(errors[0]),
      ).to.equal(true);
      expect(await db.selectFrom("transactions").select("id").execute()).to.have.length(1);
    });

    it("one request settled by two instances at once: its buckets count every send's gas", async () => {
      const { a, b } = instances;
      const { record } = await a.transactions.create(newTx(0, { reservedGas: 100n }));
      // Ten sends of 30 gas each, their receipts settled by whichever instance saw them: 300 spent, past the 100
      // reserved, so the request counts for 300 while it is pending.
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).transactions.settle(record.id, {
            status: "queued",
            nextAttemptAt: NOW,
            spentGas: 30n,
          }),
        ),
      );
      expect((await a.transactions.find(record.id))!.spentGas).to.equal(300n);
      const spend = await a.transactions.spendSince(new Map([[appId, new Date(0)]]));
      expect(spend).to.deep.equal([{ appId, chain: "localhost", gas: 300n }]);
    });

    it("one bundle's fee bumped by two instances at once: every replacement's hash kept", async () => {
      const { a, b } = instances;
      const bundle = await a.transactions.recordBundle(
        {
          chain: "localhost",
          relayer: "0x00000000000000000000000000000000000000E1",
          nonce: 0,
          txHash: "0x00",
          rawTx: "0x",
          maxFeePerGas: 1n,
          maxPriorityFeePerGas: 1n,
        },
        [],
      );
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).transactions.replaceBundleTx(bundle.id, {
            txHash: `0x${i + 1}`,
            rawTx: "0x",
            maxFeePerGas: 2n,
            maxPriorityFeePerGas: 2n,
          }),
        ),
      );
      const [pending] = await a.transactions.pendingBundles("localhost");
      expect([...pending!.txHashes].sort()).to.deep.equal(
        ["0x00", ...Array.from({ length: 10 }, (_, i) => `0x${i + 1}`)].sort(),
      );
    });

    it("owners replaced on one Safe by two instances at once: both replacements kept", async () => {
      const { a, b } = instances;
      const owners = Array.from({ length: 10 }, (_, i) => `0x${"0".repeat(39)}${i}`);
      const safe = {
        chain: "localhost",
        address: SAFE,
        appId,
        owners,
        saltNonce: 7n,
        singleton: "0x1000000000000000000000000000000000000001",
        proxyFactory: "0x1000000000000000000000000000000000000002",
        fallbackHandler: "0x1000000000000000000000000000000000000003",
      };
      const { userId: _user, ...wallet } = newTx(0);
      await a.safes.create(safe, { ...wallet, accountType: "safe", sender: SAFE, safeAction: "create" });
      await Promise.all(
        owners.map((owner, i) => (i % 2 === 0 ? a : b).safes.replaceOwner("localhost", SAFE, owner, `${owner}f`)),
      );
      const stored = await a.safes.find("localhost", SAFE);
      expect(stored!.owners).to.deep.equal(owners.map((owner) => `${owner}f`));
    });
  });
}
