import { expect } from "chai";
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  UnknownRow,
} from "kysely";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { readWindowSums } from "../../../gateway/storage/sql/spendBuckets";
import { appSpendKey, userSpendKey } from "../../../gateway/transactions/spendWindow";
import type { TxOutcome } from "../../../gateway/transactions/txOutcome";
import type { NewTx } from "../../../gateway/transactions/txRecord";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { walletTx } from "./contract/webhookFixtures";

/** Counts the statements that read an app's webhook endpoints, and those that update spend buckets. */
class StatementKinds implements KyselyPlugin {
  endpointReads = 0;
  bucketUpdates = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    const node = args.node;
    const tables = JSON.stringify(node);
    if (node.kind === "SelectQueryNode" && tables.includes('"webhook_endpoints"')) this.endpointReads++;
    if (node.kind === "UpdateQueryNode" && tables.includes('"spend_buckets"')) this.bucketUpdates++;
    return node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const RESERVED = 300_000n;
const USERS = 8;
const REQUESTS = 40;

for (const backend of ["sqlite", "postgres"] as const) {
  describe(`storage: a bundle's settlement on ${backend === "sqlite" ? "SQLite" : "PostgreSQL"}`, function () {
    this.timeout(60_000);
    let database: Database;
    let now: Date;

    beforeEach(async () => {
      database = await openDatabase(backend === "sqlite" ? ":memory:" : await freshPostgresDatabase("bundle_settle"));
      now = new Date("2026-11-29T10:00:30Z");
    });
    afterEach(async () => database.close());

    // Issue 37: a bundle of dozens of one app's requests read the app's endpoints and updated its app bucket once per
    // request; one read and one update per bucket carry the same sums.
    it("reads the app's endpoints once and updates each bucket once, with the sums of one update per request", async () => {
      const kinds = new StatementKinds();
      const repos = createRepositories(database.db.withPlugin(kinds), () => now);
      const app = (await repos.apps.create({ name: "busy" })).app;
      const stored = [];
      for (let i = 0; i < REQUESTS; i++) {
        // Half of them a minute later: the app's bucket of each minute, and each user id's.
        if (i === REQUESTS / 2) now = new Date(now.getTime() + 60_000);
        const tx: NewTx = {
          ...walletTx(app.id, i + 1),
          userId: `tel:1555000000${i % USERS}`,
          reservedGas: RESERVED,
        };
        stored.push((await repos.transactions.create(tx)).record);
      }
      // Gas used: 1,000 + i for the included, nothing for the failed (every fifth), which never ran.
      const outcomes = new Map<string, TxOutcome>(
        stored.map((record, i) => [
          record.id,
          i % 5 === 4
            ? { status: "failed", error: { code: "AA21", message: "x" } }
            : {
                status: "included",
                transactionHash: `0x${"ab".repeat(32)}`,
                blockNumber: 7,
                gasUsed: 1_000n + BigInt(i),
              },
        ]),
      );
      const [readsBefore, updatesBefore] = [kinds.endpointReads, kinds.bucketUpdates];
      await repos.transactions.settleBundle("none", { status: "mined" }, outcomes);
      expect(kinds.endpointReads - readsBefore, "endpoint reads").to.equal(1);
      // Two minutes: the app's two buckets, and each user id's two (every user id has requests in both).
      expect(kinds.bucketUpdates - updatesBefore, "bucket updates").to.equal(2 + 2 * USERS);

      const cost = (i: number) => (i % 5 === 4 ? 0n : 1_000n + BigInt(i));
      const firstMinute = Math.floor(new Date("2026-11-29T10:00:00Z").getTime() / 60_000);
      const appSums = await readWindowSums(database.db, appSpendKey(app.id, "localhost"), firstMinute);
      expect(appSums.pendingGas).to.equal(0n);
      expect(appSums.settledGas).to.equal(stored.reduce((sum, _, i) => sum + cost(i), 0n));
      for (let u = 0; u < USERS; u++) {
        const user = await readWindowSums(
          database.db,
          userSpendKey(app.id, `tel:1555000000${u}`, "localhost"),
          firstMinute,
        );
        const mine = stored.map((_, i) => i).filter((i) => i % USERS === u);
        expect(user.pendingGas, `user ${u} pending`).to.equal(0n);
        expect(user.settledGas, `user ${u} settled`).to.equal(mine.reduce((sum, i) => sum + cost(i), 0n));
      }
      // Final is final: the same outcomes again change no bucket.
      await repos.transactions.settleBundle("none", { status: "mined" }, outcomes);
      expect((await readWindowSums(database.db, appSpendKey(app.id, "localhost"), firstMinute)).settledGas).to.equal(
        appSums.settledGas,
      );
    });
  });
}
