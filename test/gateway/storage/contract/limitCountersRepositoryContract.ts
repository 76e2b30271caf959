import { expect } from "chai";
import type { Database } from "../../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import { manualClock } from "../builders";

const NOW = new Date("2025-01-01T12:00:00.000Z");
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** What every LimitCountersRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function limitCountersRepositoryContract(dialect: string, open: () => Promise<Database>): void {
  describe(`storage: limit counters repository (${dialect})`, () => {
    let database: Database;
    let repos: Repositories;
    beforeEach(async () => {
      database = await open();
      repos = createRepositories(database.db, manualClock().now);
    });
    afterEach(() => database.close());

    const rows = () =>
      database.db.selectFrom("limit_counters").select(["rule", "key", "count", "expires_at"]).orderBy("key").execute();

    it("counts a key's hits in the window its first hit started, apart from other keys and other rules", async () => {
      expect(await repos.limitCounters.hit("auth.ip", "203.0.113.7", NOW, at(60))).to.deep.equal({
        count: 1,
        windowEnd: at(60),
      });
      // A later hit counts in the same window, whatever end it would have started.
      expect(await repos.limitCounters.hit("auth.ip", "203.0.113.7", at(30), at(90))).to.deep.equal({
        count: 2,
        windowEnd: at(60),
      });
      expect((await repos.limitCounters.hit("auth.ip", "203.0.113.8", at(30), at(90))).count).to.equal(1);
      expect((await repos.limitCounters.hit("otp.request.ip", "203.0.113.7", at(30), at(3630))).count).to.equal(1);
      expect((await repos.limitCounters.hit("auth.ip", "203.0.113.7", at(59), at(119))).count).to.equal(3);
    });

    it("starts a new window at one once the key's window has ended", async () => {
      await repos.limitCounters.hit("auth.ip", "k", NOW, at(60));
      await repos.limitCounters.hit("auth.ip", "k", at(1), at(61));
      expect(await repos.limitCounters.hit("auth.ip", "k", at(60), at(120))).to.deep.equal({
        count: 1,
        windowEnd: at(120),
      });
      expect(await rows()).to.deep.equal([{ rule: "auth.ip", key: "k", count: 1, expires_at: at(120).toISOString() }]);
    });

    it("loses no hit sent at once, the key's first included (every count from 1 to n given out once)", async () => {
      const hits = 25;
      const counts = await Promise.all(
        Array.from(
          { length: hits },
          async () => (await repos.limitCounters.hit("otp.verify.app", "app_1", NOW, at(3600))).count,
        ),
      );
      expect([...counts].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: hits }, (_, i) => i + 1));
    });

    it("counts several keys' hits in one call: each grows by its hits in its window, or restarts at them", async () => {
      await repos.limitCounters.hit("ccip.answers.ip", "ended", NOW, at(60));
      await repos.limitCounters.hit("ccip.answers.ip", "open", at(30), at(90));
      const [counted] = await repos.limitCounters.hitMany(
        [
          {
            rule: "ccip.answers.ip",
            hits: new Map([
              ["ended", 3],
              ["open", 2],
              ["new", 5],
            ]),
            newWindowEnd: at(120),
          },
        ],
        at(60),
      );
      expect(Object.fromEntries(counted!)).to.deep.equal({
        ended: { count: 3, windowEnd: at(120) },
        open: { count: 3, windowEnd: at(90) },
        new: { count: 5, windowEnd: at(120) },
      });
    });

    it("counts the hits of several rules in one call, a key's in its open window, thousands of keys at once", async () => {
      await repos.limitCounters.hit("ccip.answers.ip", "k", NOW, at(60));
      const many = new Map(Array.from({ length: 2500 }, (_, i) => [`key-${i}`, 1] as const));
      const [byAddress, byNetwork] = await repos.limitCounters.hitMany(
        [
          { rule: "ccip.answers.ip", hits: new Map([["k", 4]]), newWindowEnd: at(90) },
          { rule: "ccip.answers.network", hits: many, newWindowEnd: at(90) },
        ],
        at(30),
      );
      expect(byAddress!.get("k")).to.deep.equal({ count: 5, windowEnd: at(60) });
      expect(byNetwork!.size).to.equal(2500);
      expect(byNetwork!.get("key-2499")).to.deep.equal({ count: 1, windowEnd: at(90) });
    });

    it("deletes the windows that have ended, and only those", async () => {
      await repos.limitCounters.hit("auth.ip", "a", NOW, at(60));
      await repos.limitCounters.hit("auth.ip", "b", at(30), at(90));
      await repos.limitCounters.hit("otp.request.ip", "a", NOW, at(3600));
      expect(await repos.limitCounters.deleteEnded(at(60))).to.equal(1);
      expect((await rows()).map((row) => `${row.rule} ${row.key}`)).to.have.members(["auth.ip b", "otp.request.ip a"]);
    });
  });
}
