import { expect } from "chai";
import { sql } from "kysely";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import type { TxOutcome } from "../../../gateway/transactions/txOutcome";
import type { NewTx } from "../../../gateway/transactions/txRecord";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { walletTx } from "./contract/webhookFixtures";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Attack (issue 37 review): a bundle's settlement takes the app buckets it changes in sorted order, but a group commit
 * of acceptances takes them in the order its writes arrived. A group of app B's then app A's acceptances and a
 * settlement of a bundle carrying both apps' requests (one minute) wait on each other: PostgreSQL aborts one as a
 * deadlock after deadlock_timeout. A third transaction briefly holding app A's bucket only orders the two.
 */
describe("storage attack: a bundle's settlement and a group of two apps' acceptances on PostgreSQL", function () {
  this.timeout(60_000);
  let database: Database;

  beforeEach(async () => {
    database = await openDatabase(await freshPostgresDatabase("settle_accept_deadlock"));
  });
  afterEach(async () => database.close());

  it("neither is aborted as a deadlock", async () => {
    const now = new Date("2026-11-29T10:00:30Z");
    const repos = createRepositories(database.db, () => now);
    const a = (await repos.apps.create({ name: "app-a" })).app;
    const b = (await repos.apps.create({ name: "app-b" })).app;
    let n = 0;
    const newTx = (appId: string): NewTx => ({
      ...walletTx(appId, ++n),
      userId: `tel:1555000000${n % 10}`,
      reservedGas: 100_000n,
    });
    const ra = (await repos.transactions.create(newTx(a.id))).record;
    const rb = (await repos.transactions.create(newTx(b.id))).record;
    const [first, second] = a.id < b.id ? [a, b] : [b, a];

    // Holds the first app's bucket (in the settlement's sorted order) until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const blocker = database.db.transaction().execute(async (trx) => {
      await sql`select 1 from spend_buckets where app_id = ${first.id} and scope = 'app' for update`.execute(trx);
      holding();
      await released;
    });
    await held;

    // The settlement locks its requests, then waits for the first app's bucket.
    const outcomes = new Map<string, TxOutcome>(
      [ra, rb].map((r) => [
        r.id,
        { status: "included", transactionHash: `0x${"ab".repeat(32)}`, blockNumber: 7, gasUsed: 1_000n },
      ]),
    );
    const settled = repos.transactions.settleBundle("none", { status: "mined" }, outcomes).then(
      () => "settled",
      (error: { code?: string }) => `failed ${error.code ?? String(error)}`,
    );
    await sleep(300);
    // One group: the second app's acceptance (takes its bucket), then the first app's (waits behind the settlement).
    const accepted = Promise.all([
      repos.transactions.create(newTx(second.id)),
      repos.transactions.create(newTx(first.id)),
    ]).then(
      () => "accepted",
      (error: { code?: string }) => `failed ${error.code ?? String(error)}`,
    );
    await sleep(300);
    const deadlocksBefore = await deadlocks(database);
    release();
    await blocker;
    const results = await Promise.all([settled, accepted]);
    // The statistics reach pg_stat_database within a second or so of the transaction's end.
    await sleep(1_500);
    const deadlocksAfter = await deadlocks(database);
    expect({ results, deadlocks: deadlocksAfter - deadlocksBefore }).to.deep.equal({
      results: ["settled", "accepted"],
      deadlocks: 0,
    });
  });
});

/** PostgreSQL's count of deadlocks detected in this database. */
async function deadlocks(database: Database): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select deadlocks::text as n from pg_stat_database where datname = current_database()`.execute(database.db);
  return Number(rows[0]!.n);
}
