import { expect } from "chai";
import type { Database } from "../../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import { manualClock } from "../builders";

const WINDOW = new Date("2025-01-01T12:00:00.000Z");
const NEXT_WINDOW = new Date("2025-01-01T12:01:00.000Z");

/** What every RateWindowsRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function rateWindowsRepositoryContract(dialect: string, open: () => Promise<Database>): void {
  describe(`storage: rate windows repository (${dialect})`, () => {
    let database: Database;
    let repos: Repositories;
    let appId: string;
    let otherAppId: string;
    beforeEach(async () => {
      database = await open();
      repos = createRepositories(database.db, manualClock().now);
      appId = (await repos.apps.create({ name: "app" })).app.id;
      otherAppId = (await repos.apps.create({ name: "other" })).app.id;
    });
    afterEach(() => database.close());

    it("counts an app's hits in a window, apart from another app's", async () => {
      expect(await repos.rateWindows.hit(appId, WINDOW)).to.equal(1);
      expect(await repos.rateWindows.hit(appId, WINDOW)).to.equal(2);
      expect(await repos.rateWindows.hit(otherAppId, WINDOW)).to.equal(1);
      expect(await repos.rateWindows.hit(appId, WINDOW)).to.equal(3);
    });

    it("starts a new window at one and drops the app's earlier windows", async () => {
      await repos.rateWindows.hit(appId, WINDOW);
      await repos.rateWindows.hit(otherAppId, WINDOW);
      expect(await repos.rateWindows.hit(appId, NEXT_WINDOW)).to.equal(1);
      const rows = await database.db
        .selectFrom("app_rate_windows")
        .select(["app_id", "window_start", "count"])
        .orderBy("app_id")
        .execute();
      expect(rows).to.have.deep.members([
        { app_id: appId, window_start: NEXT_WINDOW.toISOString(), count: 1 },
        { app_id: otherAppId, window_start: WINDOW.toISOString(), count: 1 },
      ]);
    });

    it("loses no hit sent at once (every count from 1 to n given out once)", async () => {
      const hits = 25;
      const counts = await Promise.all(Array.from({ length: hits }, () => repos.rateWindows.hit(appId, WINDOW)));
      expect([...counts].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: hits }, (_, i) => i + 1));
    });

    it("counts hits of several apps sent at once each in its own app's window, in the order they came", async () => {
      const apps = [appId, otherAppId, appId, appId, otherAppId];
      const counts = await Promise.all(apps.map((app) => repos.rateWindows.hit(app, WINDOW)));
      expect(counts).to.deep.equal([1, 1, 2, 3, 2]);
      expect(await repos.rateWindows.hit(appId, WINDOW)).to.equal(4);
    });
  });
}
