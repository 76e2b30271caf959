import { expect } from "chai";
import { ZodError } from "zod";
import { openTestStore, type TestStore } from "./builders";

const T0 = "2025-01-01T00:00:00.000Z";

describe("storage: settings repository", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.database.close());

  it("reports maintenance off when it was never set", async () => {
    expect(await store.repos.settings.getMaintenance()).to.deep.equal({ enabled: false });
  });

  it("round-trips maintenance on with a message, then off without it", async () => {
    await store.repos.settings.setMaintenance(true, "Upgrading, back at 10:00 UTC");
    expect(await store.repos.settings.getMaintenance()).to.deep.equal({
      enabled: true,
      message: "Upgrading, back at 10:00 UTC",
      updatedAt: T0,
    });

    store.clock.advance(90_000);
    await store.repos.settings.setMaintenance(false, "ignored when off");
    expect(await store.repos.settings.getMaintenance()).to.deep.equal({
      enabled: false,
      updatedAt: "2025-01-01T00:01:30.000Z",
    });

    await store.repos.settings.setMaintenance(true);
    expect(await store.repos.settings.getMaintenance()).to.deep.equal({
      enabled: true,
      updatedAt: "2025-01-01T00:01:30.000Z",
    });
  });

  it("stores one JSON document under the key `maintenance`", async () => {
    await store.repos.settings.setMaintenance(true, "m");
    await store.repos.settings.setMaintenance(true, "n");
    const rows = await store.database.db.selectFrom("settings").selectAll().execute();
    expect(rows).to.have.length(1);
    expect(rows[0]?.key).to.equal("maintenance");
    expect(JSON.parse(rows[0]?.value ?? "null")).to.deep.equal({ enabled: true, message: "n" });
  });

  it("refuses an empty or over-long message", async () => {
    for (const message of ["  ", "x".repeat(501)]) {
      const error = await store.repos.settings.setMaintenance(true, message).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ZodError);
    }
    expect(await store.repos.settings.getMaintenance()).to.deep.equal({ enabled: false });
  });

  it("refuses a corrupt stored document", async () => {
    await store.database.db
      .insertInto("settings")
      .values({ key: "maintenance", value: '{"enabled":"yes"}', updated_at: T0 })
      .execute();
    const error = await store.repos.settings.getMaintenance().catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(ZodError);
  });
});
