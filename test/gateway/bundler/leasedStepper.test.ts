import { expect } from "chai";
import pino from "pino";
import { LeasedStepper } from "../../../gateway/bundler/leasedStepper";
import type { Fence, LeaseHolder } from "../../../gateway/leases/lease";
import { openDatabase, type Database } from "../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../gateway/storage/repositories";
import { manualClock, type ManualClock } from "../storage/builders";

const TTL = 9_000;
const silent = pino({ level: "silent" });
const holder = (host: string): LeaseHolder => ({ id: `${host}-id`, host, pid: 1, pidNamespace: `${host}/pid:[1]` });
const bundle = (nonce: number) => ({
  chain: "localhost",
  relayer: "0x" + "11".repeat(20),
  nonce,
  txHash: "0x" + (nonce + 1).toString(16).padStart(64, "0"),
  rawTx: "0x02",
  maxFeePerGas: 2n,
  maxPriorityFeePerGas: 1n,
});

/** A worker of one instance: records a bundle each step through the fenced repository it is started with. */
function instance(repos: Repositories, clock: ManualClock, host: string, retryMs = 0) {
  const started: Fence[] = [];
  let closed = 0;
  let nonce = 0;
  const stepper = new LeasedStepper(
    "tx-worker:localhost",
    { leases: repos.workerLeases, holder: holder(host), ttlMs: TTL, retryMs, clock: clock.now },
    (fence) => {
      started.push(fence);
      const repository = repos.transactions.fenced(fence);
      return {
        tick: async () => (await repository.recordBundle(bundle(nonce++), []), true),
        close: () => void closed++,
      };
    },
    silent,
  );
  return { stepper, started, closed: () => closed };
}

describe("a chain's worker under a lease", () => {
  let database: Database;
  let repos: Repositories;
  let clock: ManualClock;
  beforeEach(async () => {
    database = await openDatabase(":memory:");
    clock = manualClock("2026-11-25T00:00:00.000Z");
    repos = createRepositories(database.db, clock.now);
  });
  afterEach(() => database.close());

  it("steps in one instance only; the other stands by until the first closes, then resumes at once", async () => {
    const a = instance(repos, clock, "a");
    const b = instance(repos, clock, "b");
    expect(await a.stepper.tick()).to.equal(true);
    expect(await b.stepper.tick()).to.equal(false);
    expect(await a.stepper.tick()).to.equal(true);
    expect(b.started).to.deep.equal([]);
    await a.stepper.close();
    expect(a.closed()).to.equal(1);
    expect(await b.stepper.tick()).to.equal(true);
    expect(b.started).to.deep.equal([{ name: "tx-worker:localhost", token: 2 }]);
    await b.stepper.close();
  });

  it("a holder that stopped renewing is taken over; its next step stops its stepper and records nothing", async () => {
    const a = instance(repos, clock, "a");
    const b = instance(repos, clock, "b");
    expect(await a.stepper.tick()).to.equal(true);
    // A pauses (no renewal reaches the database) past its lease; B takes the chain.
    clock.advance(TTL);
    expect(await b.stepper.tick()).to.equal(true);
    const before = await repos.transactions.pendingBundles("localhost");
    expect(await a.stepper.tick()).to.equal(false);
    expect(a.closed()).to.equal(1);
    expect(await repos.transactions.pendingBundles("localhost")).to.deep.equal(before);
    await Promise.all([a.stepper.close(), b.stepper.close()]);
  });

  it("a stepper whose write finds the lease taken over mid-step is stopped, and a fresh one starts on retaking it", async () => {
    const a = instance(repos, clock, "a");
    expect(await a.stepper.tick()).to.equal(true);
    // The token changes under A between two steps (as if another instance had taken the lease and A renewed it
    // back): A's next write fails the fence.
    const [held] = await repos.workerLeases.list();
    await database.db
      .updateTable("worker_leases")
      .set({ token: held!.token + 1 })
      .execute();
    expect(await a.stepper.tick()).to.equal(false);
    expect(a.closed()).to.equal(1);
    // The next step starts a new holding of A's own lease, with a token of its own.
    expect(await a.stepper.tick()).to.equal(true);
    expect(a.started.map((fence) => fence.token)).to.deep.equal([1, 3]);
    await a.stepper.close();
  });

  it("a standing-by instance tries to take the lease at most once a retry interval, however often it is woken", async () => {
    const a = instance(repos, clock, "a");
    const b = instance(repos, clock, "b", 60_000);
    expect(await a.stepper.tick()).to.equal(true);
    expect(await b.stepper.tick()).to.equal(false);
    await a.stepper.close();
    // Free now, but B tried a moment ago: its wakes cost no query until the interval has passed.
    for (let i = 0; i < 100; i++) expect(await b.stepper.tick()).to.equal(false);
    expect(b.started).to.deep.equal([]);
    await b.stepper.close();
  });
});
