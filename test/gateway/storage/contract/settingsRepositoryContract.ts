import { expect } from "chai";
import { ZodError } from "zod";
import type { Database } from "../../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import { manualClock, type ManualClock } from "../builders";

const T0 = "2025-01-01T00:00:00.000Z";

/**
 * What every SettingsRepository does, whatever database is under it: `open` gives a fresh, migrated database per test
 * (SQLite in memory, a new PostgreSQL database), so one suite holds both dialects to the same behaviour.
 */
export function settingsRepositoryContract(dialect: string, open: () => Promise<Database>): void {
  describe(`storage: settings repository (${dialect})`, () => {
    let database: Database;
    let settings: Repositories["settings"];
    let clock: ManualClock;
    beforeEach(async () => {
      database = await open();
      clock = manualClock(T0);
      settings = createRepositories(database.db, clock.now).settings;
    });
    afterEach(() => database.close());

    it("reports maintenance off when it was never set", async () => {
      expect(await settings.getMaintenance()).to.deep.equal({ enabled: false });
    });

    it("round-trips maintenance on with a message, then off without it", async () => {
      await settings.setMaintenance(true, "Upgrading, back at 10:00 UTC");
      expect(await settings.getMaintenance()).to.deep.equal({
        enabled: true,
        message: "Upgrading, back at 10:00 UTC",
        updatedAt: T0,
      });

      clock.advance(90_000);
      await settings.setMaintenance(false, "ignored when off");
      expect(await settings.getMaintenance()).to.deep.equal({
        enabled: false,
        updatedAt: "2025-01-01T00:01:30.000Z",
      });

      await settings.setMaintenance(true);
      expect(await settings.getMaintenance()).to.deep.equal({
        enabled: true,
        updatedAt: "2025-01-01T00:01:30.000Z",
      });
    });

    it("stores one JSON document under the key `maintenance`", async () => {
      await settings.setMaintenance(true, "m");
      await settings.setMaintenance(true, "n");
      const rows = await database.db.selectFrom("settings").selectAll().execute();
      expect(rows).to.have.length(1);
      expect(rows[0]?.key).to.equal("maintenance");
      expect(JSON.parse(rows[0]?.value ?? "null")).to.deep.equal({ enabled: true, message: "n" });
    });

    it("refuses an empty or over-long message", async () => {
      for (const message of ["  ", "x".repeat(501)]) {
        const error = await settings.setMaintenance(true, message).catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(ZodError);
      }
      expect(await settings.getMaintenance()).to.deep.equal({ enabled: false });
    });

    it("refuses a corrupt stored document", async () => {
      await database.db
        .insertInto("settings")
        .values({ key: "maintenance", value: '{"enabled":"yes"}', updated_at: T0 })
        .execute();
      const error = await settings.getMaintenance().catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ZodError);
    });
  });
}
