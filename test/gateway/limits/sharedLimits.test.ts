import { expect } from "chai";
import { sql } from "kysely";
import pino from "pino";
import request from "supertest";
import { createSharedLimits } from "../../../gateway/limits/sharedLimits";
import type { LimitRule } from "../../../gateway/limits/limits";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { isStorageUnavailable } from "../../../gateway/storage/errors";
import { createRepositories } from "../../../gateway/storage/repositories";
import { freshPostgresDatabase, startPostgresServer } from "../../helpers/postgresServer";
import { buildTestApp } from "../../helpers/testApp";
import { manualClock } from "../storage/builders";

const RULE: LimitRule = { name: "auth.ip", points: 3, windowSeconds: 60 };

/** The error `run` rejects with (it must reject). */
const failureOf = (run: () => Promise<unknown>): Promise<unknown> =>
  run().then(
    () => expect.fail("expected a failure"),
    (error: unknown) => error,
  );

for (const [dialect, open] of [
  ["SQLite", () => openDatabase(":memory:")],
  ["PostgreSQL", async () => openDatabase(await freshPostgresDatabase("shared_limits_unit"))],
] as const) {
  describe(`limits: counted in the database (${dialect})`, () => {
    let database: Database;
    const clock = manualClock("2026-11-22T12:00:00.000Z");
    /** A process's limits over the database (each call: another process, with its own memory). */
    const processOnDatabase = () =>
      createSharedLimits({ counters: createRepositories(database.db, clock.now).limitCounters, clock: clock.now });
    const stored = () => database.db.selectFrom("limit_counters").select(["key", "count"]).orderBy("key").execute();
    beforeEach(async () => {
      database = await open();
    });
    afterEach(() => database.close());

    it("two processes on one database allow the rule's points in total, each refusing with the window's rest", async () => {
      const [a, b] = [processOnDatabase().limiter(RULE), processOnDatabase().limiter(RULE)];
      expect(await a.hit("203.0.113.7")).to.deep.equal({ allowed: true });
      expect(await b.hit("203.0.113.7")).to.deep.equal({ allowed: true });
      clock.advance(20_000);
      expect(await a.hit("203.0.113.7")).to.deep.equal({ allowed: true });
      expect(await b.hit("203.0.113.7")).to.deep.equal({ allowed: false, retryAfterSeconds: 40 });
      expect(await a.hit("203.0.113.7")).to.deep.equal({ allowed: false, retryAfterSeconds: 40 });
      // The window began at the key's first hit: it ends 60 s after it, for both, and the next one starts at one.
      clock.advance(40_000);
      expect(await b.hit("203.0.113.7")).to.deep.equal({ allowed: true });
      expect(await stored()).to.deep.equal([{ key: "203.0.113.7", count: 1 }]);
    });

    it("a flood from a key over its limit is refused from memory until its window ends, without a write per request", async () => {
      const limiter = processOnDatabase().limiter(RULE);
      for (let i = 0; i < 4; i++) await limiter.hit("flood");
      for (let i = 0; i < 50; i++) expect((await limiter.hit("flood")).allowed).to.equal(false);
      expect(await stored()).to.deep.equal([{ key: "flood", count: 4 }]);
      // Another rule with the same key is counted apart.
      expect(
        await processOnDatabase()
          .limiter({ ...RULE, name: "auth.client" })
          .hit("flood"),
      ).to.deep.equal({
        allowed: true,
      });
    });

    it("deletes ended windows, at most once a minute per process: rows of keys never seen again do not pile up", async () => {
      const limits = processOnDatabase();
      const limiter = limits.limiter(RULE);
      for (let i = 0; i < 20; i++) await limiter.hit(`198.51.100.${i}`);
      expect(await stored()).to.have.length(20);
      clock.advance(60_000);
      await limiter.hit("203.0.113.1");
      expect(await stored()).to.deep.equal([{ key: "203.0.113.1", count: 1 }]);
    });

    it("a database that cannot answer: the hit rejects with a storage-unavailable error (a 503), never an allowed hit", async () => {
      const limiter = processOnDatabase().limiter(RULE);
      if (dialect === "SQLite") await sql`pragma query_only = on`.execute(database.db);
      else
        await sql`alter database ${sql.id(await currentDatabase(database))} set default_transaction_read_only = on`.execute(
          database.db,
        );
      if (dialect === "PostgreSQL") await reconnect(database);
      const error = await failureOf(() => limiter.hit("203.0.113.7"));
      expect(isStorageUnavailable(error), String(error)).to.equal(true);
    });
  });
}

/** The name of the database `database` is connected to. */
async function currentDatabase(database: Database): Promise<string> {
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(database.db);
  return rows[0]!.name;
}

/** Ends every connection to the database, this one too: the pool opens new ones, which take the database's settings. */
async function reconnect(database: Database): Promise<void> {
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database()`
    .execute(database.db)
    .catch(() => undefined);
}

describe("limits: the database down at a limit check (API, PostgreSQL stopped)", () => {
  it("POST /v1/auth and phone login answer 503 STORAGE_UNAVAILABLE, not 500, and not unlimited", async function () {
    this.timeout(60_000);
    const server = await startPostgresServer();
    try {
      const built = buildTestApp(
        { trustProxy: 1, authLimits: { perIpPerMinute: 1, perClientPerMinute: 1 } },
        { databasePath: await server.createDatabase("limits_down"), logger: pino({ level: "silent" }) },
      );
      await built.database;
      server.stop();
      for (const [path, body] of [
        ["/v1/auth", { client_id: "cid_x", client_secret: "x" }],
        ["/functions/v1/signInWithOTP", { phone: "+14155552671" }],
      ] as const) {
        const post = request(built.app).post(path).set("X-Forwarded-For", "203.0.113.7");
        const res = await (path === "/v1/auth" ? post.type("form") : post).send(body);
        expect(res.status, res.text).to.equal(503);
        expect(res.headers["retry-after"]).to.equal("5");
        expect(res.body).to.deep.equal({
          type: "about:blank",
          title: "Storage unavailable",
          status: 503,
          code: "STORAGE_UNAVAILABLE",
          detail: "The service could not read or write its storage; try again later",
          instance: path,
          requestId: res.headers["x-request-id"],
        });
      }
      built.close();
    } finally {
      server.stop();
    }
  });
});
