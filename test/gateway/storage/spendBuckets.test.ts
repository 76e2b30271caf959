import { expect } from "chai";
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  UnknownRow,
} from "kysely";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { type SpendLimit, SpendLimitExceededError } from "../../../gateway/transactions/spendLimits";
import type { NewTx } from "../../../gateway/transactions/txRecord";

const RESERVED = 6_000_000n;
const DAY: SpendLimit = { rule: "budget", limitGas: 2n * RESERVED + 200_000n, periodSeconds: 86_400 };
const ROOMY: SpendLimit = { ...DAY, limitGas: 1000n * RESERVED };
// 100 bursts of 500 requests, 10 minutes apart: 50,000 requests over most of a day, each failed and settled at 0.
const BURSTS = 100;
const PER_BURST = 500;

/** Counts the rows inserted into `transactions`, to tell a request stored once from one stored again on a retry. */
class TransactionInserts implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    const node = args.node;
    if (node.kind === "InsertQueryNode" && node.into?.table.identifier.name === "transactions") this.count++;
    return node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

describe("storage: spend buckets against an app that fills its window", function () {
  this.timeout(120_000);

  // Asserted by what is read and written, not by wall-clock time (this machine is shared; timings belong to bench/).
  it("keeps other apps' acceptance, the busy app's refusal and a mixed group commit cheap", async () => {
    let now = new Date("2026-11-22T00:00:00Z");
    const database = await openDatabase(":memory:");
    const inserts = new TransactionInserts();
    const repos = createRepositories(database.db.withPlugin(inserts), () => now);
    const busy = (await repos.apps.create({ name: "busy" })).app;
    const other = (await repos.apps.create({ name: "other" })).app;
    let n = 0;
    const newTx = (appId: string): NewTx => ({
      appId,
      accountType: "kernel",
      userId: `${appId}:alice`,
      chain: "localhost",
      sender: `0x${(++n).toString(16).padStart(40, "0")}`,
      calls: [{ to: "0x000000000000000000000000000000000000dEaD", value: 0n, data: "0x" }],
      delegatecall: false,
      idempotencyKey: undefined,
      requestHash: "h",
      reservedGas: RESERVED,
    });

    for (let burst = 0; burst < BURSTS; burst++) {
      const stored = await Promise.all(
        Array.from({ length: PER_BURST }, () => repos.transactions.create(newTx(busy.id))),
      );
      const failed = { status: "failed", error: { code: "AA21", message: "x" } } as const;
      await repos.transactions.settleBundle(
        "none",
        { status: "dropped" },
        new Map(stored.map((s) => [s.record.id, failed])),
      );
      now = new Date(now.getTime() + 10 * 60_000);
    }
    // Two reservations still pending: the busy app's budget is full.
    await repos.transactions.create(newTx(busy.id), [DAY]);
    await repos.transactions.create(newTx(busy.id), [DAY]);
    const buckets = await database.db
      .selectFrom("spend_buckets")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("app_id", "=", busy.id)
      .where("scope", "=", "app")
      .executeTakeFirstOrThrow();
    // A window sums buckets, at most one a minute: here one per burst, not one per request.
    expect(Number(buckets.count)).to.equal(BURSTS + 1);

    await repos.transactions.create(newTx(other.id), [ROOMY]);
    let refusal: unknown;
    await repos.transactions.create(newTx(busy.id), [DAY]).catch((e) => (refusal = e));
    expect(refusal).to.be.instanceOf(SpendLimitExceededError);

    // One refusal among 50 other-app requests: the 50 are stored once each, in the shared commit, not retried alone.
    const before = inserts.count;
    const batch = [newTx(busy.id), ...Array.from({ length: 50 }, () => newTx(other.id))];
    const results = await Promise.allSettled(
      batch.map((tx) => repos.transactions.create(tx, [tx.appId === busy.id ? DAY : ROOMY])),
    );
    expect(results.map((r) => r.status)).to.deep.equal(["rejected", ...Array(50).fill("fulfilled")]);
    expect(inserts.count - before).to.equal(50);
    await database.close();
  });
});
