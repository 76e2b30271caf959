import { expect } from "chai";
import type { Lease, LeaseHolder } from "../../../gateway/leases/lease";
import { openDatabase, type Database } from "../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../gateway/storage/repositories";
import { checkFence } from "../../../gateway/storage/sql/sqlWorkerLeasesRepository";
import { freshPostgresDatabase } from "../../helpers/postgresServer";

const TTL = 2_000;
const alive = () => false;
const A: LeaseHolder = { id: "a-1", host: "machine-a", pid: 101, pidNamespace: "boot-a/pid:[1]" };
const B: LeaseHolder = { id: "b-1", host: "machine-b", pid: 202, pidNamespace: "boot-b/pid:[1]" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tries to take `name` for B every 100 ms for up to `ms` (real time: the server's timeouts run on it). */
async function takeWithin(repos: Repositories, name: string, ms: number): Promise<Lease | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const lease = await repos.workerLeases.acquire(name, B, TTL, alive);
    if (lease || Date.now() > deadline) return lease;
    await sleep(100);
  }
}

/**
 * A holder frozen (SIGSTOP, a VM paused, a partition) inside a transaction that locks its lease row: a fenced write
 * after its fence check, or a renewal. PostgreSQL keeps the lock while the connection stays open, and another
 * instance's acquire skips the locked row, so without a bound the chain's worker would stand still for as long as
 * the holder stays frozen.
 */
describe("worker leases: a holder frozen mid-write (PostgreSQL)", () => {
  let database: Database;
  let repos: Repositories;
  let thaw: () => void = () => undefined;
  beforeEach(async () => {
    database = await openDatabase(await freshPostgresDatabase("leases_paused"));
    repos = createRepositories(database.db, () => new Date());
  });
  afterEach(async () => {
    thaw();
    await database.close();
  });

  it("a holder frozen after its fence check cannot stall the takeover: the server ends its transaction, another instance takes over, the late write lands nowhere", async function () {
    this.timeout(20_000);
    const lease = (await repos.workerLeases.acquire("tx-worker:x", A, TTL, alive))!;
    const frozen = new Promise<void>((resolve) => (thaw = resolve));
    const write = database.db.transaction().execute(async (trx) => {
      await checkFence(trx, lease);
      await frozen;
      await trx.updateTable("worker_leases").set({ acquired_at: "written late" }).execute();
    });
    const outcome = write.then(
      () => "committed",
      () => "failed",
    );

    const taken = await takeWithin(repos, "tx-worker:x", TTL + 3_000);
    expect(taken, "another instance takes the lease over").to.include({ token: 2 });
    expect(taken?.holder).to.deep.equal(B);

    // The frozen holder wakes up: its write is gone with its transaction, nothing of it lands.
    thaw();
    expect(await outcome).to.equal("failed");
    const [stored] = await repos.workerLeases.list();
    expect(stored).to.deep.include({ token: 2, holder: B });
  });
});
