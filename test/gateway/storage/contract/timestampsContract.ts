import { expect } from "chai";
import { openTestStore, type OpenTestDatabase, type TestStore } from "../builders";

/**
 * Times as the service writes them (`toISOString()`), chosen where a time type could lose or move them: every
 * millisecond digit position (a trailing zero the database may drop), before 1970, the last millisecond of a day and
 * of a year, a leap day, and after 2038 and 2100.
 */
const TIMES = [
  "2025-01-01T00:00:00.000Z",
  "2025-01-01T00:00:00.001Z",
  "2025-01-01T00:00:00.010Z",
  "2025-01-01T00:00:00.100Z",
  "2025-01-01T00:00:00.999Z",
  "2025-06-30T23:59:59.999Z",
  "2024-12-31T23:59:59.999Z",
  "2024-02-29T12:34:56.789Z",
  "1969-12-31T23:59:59.999Z",
  "2038-01-19T03:14:08.123Z",
  "2100-03-01T00:00:00.057Z",
];

/** Every millisecond of one second, written in a shuffled order: each must read back as written, in time order. */
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => new Date(Date.UTC(2025, 4, 6, 7, 8, 9, ms)).toISOString());
const shuffled = MILLISECONDS.map((time, i) => ({ time, key: (i * 7919) % 1000 }))
  .sort((a, b) => a.key - b.key)
  .map(({ time }) => time);

/**
 * What every dialect does with a timestamp column (migrations/dialect.ts `timestamp`): SQLite stores the ISO text,
 * PostgreSQL a `timestamptz`; either way the service reads back exactly the text it wrote, and the database compares
 * and orders them in time order (which the repositories' `where … <= now`, `order by created_at`, `min()` rely on).
 */
export function timestampsContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: timestamps (${dialect})`, () => {
    let store: TestStore;
    beforeEach(async () => {
      store = await openTestStore(open);
    });
    afterEach(() => store.database.close());

    const insertCounters = (times: readonly string[]) =>
      store.database.db
        .insertInto("limit_counters")
        .values(times.map((time, i) => ({ rule: "r", key: `k${i}`, count: 1, expires_at: time })))
        .execute();

    it("reads back every stored time exactly as written, to the millisecond", async () => {
      await insertCounters([...TIMES, ...shuffled]);
      const rows = await store.database.db.selectFrom("limit_counters").select(["key", "expires_at"]).execute();
      const read = new Map(rows.map((row) => [row.key, row.expires_at]));
      [...TIMES, ...shuffled].forEach((time, i) => expect(read.get(`k${i}`)).to.equal(time));
    });

    it("orders, compares and takes the minimum and maximum in time order", async () => {
      await insertCounters([...TIMES, ...shuffled]);
      const inOrder = [...TIMES, ...MILLISECONDS].sort();
      const ordered = await store.database.db
        .selectFrom("limit_counters")
        .select("expires_at")
        .orderBy("expires_at")
        .execute();
      expect(ordered.map((row) => row.expires_at)).to.deep.equal(inOrder);

      const middle = MILLISECONDS[500]!;
      const atOrBefore = await store.database.db
        .selectFrom("limit_counters")
        .select("expires_at")
        .where("expires_at", "<=", middle)
        .where("expires_at", ">", "2025-05-06T07:08:09.000Z")
        .orderBy("expires_at")
        .execute();
      expect(atOrBefore.map((row) => row.expires_at)).to.deep.equal(MILLISECONDS.slice(1, 501));

      const { oldest, newest } = await store.database.db
        .selectFrom("limit_counters")
        .select((eb) => [eb.fn.min("expires_at").as("oldest"), eb.fn.max("expires_at").as("newest")])
        .executeTakeFirstOrThrow();
      expect([oldest, newest]).to.deep.equal(["1969-12-31T23:59:59.999Z", "2100-03-01T00:00:00.057Z"]);
    });

    it("hands the repositories the clock's times unchanged, through an insert, an update and an upsert", async () => {
      store.clock.advance(Date.parse("2025-03-04T05:06:07.089Z") - store.clock.now().getTime());
      const { app } = await store.repos.apps.create({ name: "a" });
      store.clock.advance(11);
      const disabled = await store.repos.apps.setStatus(app.id, "disabled");
      expect([app.createdAt, disabled.updatedAt]).to.deep.equal([
        "2025-03-04T05:06:07.089Z",
        "2025-03-04T05:06:07.100Z",
      ]);
      expect(await store.repos.apps.findById(app.id)).to.deep.equal(disabled);

      const windowEnd = new Date("2025-03-04T05:07:07.100Z");
      expect(await store.repos.limitCounters.hit("r", "k", store.clock.now(), windowEnd)).to.deep.equal({
        count: 1,
        windowEnd,
      });
      // Still in the window: the stored end comes back through the upsert's `case`, compared with the time of the hit.
      expect(
        await store.repos.limitCounters.hit("r", "k", new Date("2025-03-04T05:07:07.099Z"), new Date(0)),
      ).to.deep.equal({ count: 2, windowEnd });
      expect(await store.repos.limitCounters.deleteEnded(new Date("2025-03-04T05:07:07.099Z"))).to.equal(0);
      expect(await store.repos.limitCounters.deleteEnded(windowEnd)).to.equal(1);
    });
  });
}
