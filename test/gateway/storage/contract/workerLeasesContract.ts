import { expect } from "chai";
import { LeaseLostError, type LeaseHolder } from "../../../../gateway/leases/lease";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import type { Database } from "../../../../gateway/storage/database";
import { manualClock, type ManualClock, type OpenTestDatabase } from "../builders";

const TTL = 15_000;
const alive = () => false;
const holder = (host: string, pid: number, pidNamespace = `${host}-boot/pid:[1]`): LeaseHolder => ({
  id: `${host}-${pid}`,
  host,
  pid,
  pidNamespace,
});
const A = holder("machine-a", 101);
const B = holder("machine-b", 202);
const bundle = (nonce: number) => ({
  chain: "localhost",
  relayer: "0x" + "11".repeat(20),
  nonce,
  txHash: "0x" + nonce.toString(16).padStart(64, "0"),
  rawTx: "0x02",
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
});

/**
 * What the worker leases do on either database: one holder at a time, taken over once ended (or at once from an
 * exited process of the same instance), the token raised on every change of holder, and every fenced write of a
 * holder that lost the lease refused with nothing stored.
 */
export function workerLeasesContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: worker leases (${dialect})`, () => {
    let database: Database;
    let clock: ManualClock;
    let repos: Repositories;
    beforeEach(async () => {
      database = await open();
      clock = manualClock("2026-11-25T00:00:00.000Z");
      repos = createRepositories(database.db, clock.now);
    });
    afterEach(() => database.close());

    it("grants a free lease with token 1 and refuses it to anyone else until it ends", async () => {
      const lease = await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive);
      expect(lease).to.include({ name: "tx-worker:x", token: 1 });
      expect(lease?.expiresAt.toISOString()).to.equal("2026-11-25T00:00:15.000Z");
      expect(await repos.workerLeases.acquire("tx-worker:x", B, TTL, alive)).to.equal(undefined);
      clock.advance(TTL - 1);
      expect(await repos.workerLeases.acquire("tx-worker:x", B, TTL, alive)).to.equal(undefined);
      // Another work's lease is its own.
      expect(await repos.workerLeases.acquire("tx-worker:y", B, TTL, alive)).to.include({ token: 1 });
    });

    it("hands an ended lease to the next holder with a higher token; the old holder can no longer renew it", async () => {
      const first = (await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive))!;
      clock.advance(TTL);
      const second = (await repos.workerLeases.acquire("tx-worker:x", B, TTL, alive))!;
      expect(second).to.include({ token: 2 });
      expect(second.holder).to.deep.equal(B);
      expect(await repos.workerLeases.renew(first, TTL)).to.equal(undefined);
      const renewed = await repos.workerLeases.renew(second, TTL);
      expect(renewed?.token).to.equal(2);
    });

    it("renews a held lease with the same token, pushing its end", async () => {
      const lease = (await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive))!;
      clock.advance(10_000);
      const renewed = (await repos.workerLeases.renew(lease, TTL))!;
      expect(renewed.token).to.equal(1);
      expect(renewed.expiresAt.toISOString()).to.equal("2026-11-25T00:00:25.000Z");
      clock.advance(10_000);
      expect(await repos.workerLeases.acquire("tx-worker:x", B, TTL, alive)).to.equal(undefined);
    });

    it("lets a restarted process of the same instance take the lease at once, only if the old process exited", async () => {
      await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive);
      const restarted = holder("machine-a", 303);
      expect(await repos.workerLeases.acquire("tx-worker:x", restarted, TTL, () => false)).to.equal(undefined);
      // Another instance gets nothing from the old process having exited.
      expect(await repos.workerLeases.acquire("tx-worker:x", B, TTL, () => true)).to.equal(undefined);
      const taken = await repos.workerLeases.acquire("tx-worker:x", restarted, TTL, (pid) => pid === 101);
      expect(taken).to.include({ token: 2 });
    });

    it("a process of the same INSTANCE_ID in another pid namespace (a second container) waits for the lease to end", async () => {
      await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive);
      // Its own namespace has no process 101: it must not take that for the holder having exited.
      const twin = holder("machine-a", 303, "other-boot/pid:[9]");
      expect(await repos.workerLeases.acquire("tx-worker:x", twin, TTL, () => true)).to.equal(undefined);
      clock.advance(TTL);
      expect(await repos.workerLeases.acquire("tx-worker:x", twin, TTL, () => true)).to.include({ token: 2 });
    });

    it("released, the lease goes to another instance at once", async () => {
      const lease = (await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive))!;
      await repos.workerLeases.release(lease);
      expect(await repos.workerLeases.acquire("tx-worker:x", B, TTL, alive)).to.include({ token: 2 });
      // A stale release (an older token) ends nothing.
      await repos.workerLeases.release(lease);
      expect(await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive)).to.equal(undefined);
    });

    it("refuses every fenced write of a holder whose lease was taken over, storing nothing", async () => {
      const first = (await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive))!;
      const oldWorker = repos.transactions.fenced(first);
      await oldWorker.recordBundle(bundle(0), []);
      clock.advance(TTL);
      const second = (await repos.workerLeases.acquire("tx-worker:x", B, TTL, alive))!;
      const error = await oldWorker.recordBundle(bundle(1), []).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(LeaseLostError);
      const [pending] = await repos.transactions.pendingBundles("localhost");
      expect(await repos.transactions.pendingBundles("localhost")).to.have.length(1);
      for (const write of [
        () =>
          oldWorker.replaceBundleTx(pending!.id, {
            txHash: "0x" + "ab".repeat(32),
            rawTx: "0x03",
            maxFeePerGas: 3n,
            maxPriorityFeePerGas: 2n,
          }),
        () => oldWorker.settleBundle(pending!.id, { status: "dropped" }, new Map()),
      ]) {
        expect(
          await write().then(
            () => undefined,
            (e: unknown) => e,
          ),
        ).to.be.instanceOf(LeaseLostError);
      }
      const [unchanged] = await repos.transactions.pendingBundles("localhost");
      expect(unchanged).to.deep.equal(pending);
      // The new holder's writes go through.
      await repos.transactions.fenced(second).settleBundle(pending!.id, { status: "dropped" }, new Map());
      expect(await repos.transactions.pendingBundles("localhost")).to.deep.equal([]);
    });

    it("gives an ended lease to exactly one of many instances trying at once", async () => {
      await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive);
      clock.advance(TTL);
      const tries = Array.from({ length: 12 }, (_, i) => holder(`machine-${i}`, 1000 + i));
      const granted = (
        await Promise.all(tries.map((h) => repos.workerLeases.acquire("tx-worker:x", h, TTL, alive)))
      ).filter((lease) => lease !== undefined);
      expect(granted).to.have.length(1);
      expect(granted[0]?.token).to.equal(2);
      const [stored] = await repos.workerLeases.list();
      expect(stored?.holder).to.deep.equal(granted[0]?.holder);
    });
  });
}
