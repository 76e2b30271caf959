import { expect } from "chai";
import { createHmac } from "node:crypto";
import { ZodError } from "zod";
import { NotFoundError } from "../../../../gateway/storage/errors";
import { hashClientSecret } from "../../../../gateway/auth/clientSecret";
import { type OpenTestDatabase, openTestStore, scryptHash, type TestStore } from "../builders";

const T0 = "2025-01-01T00:00:00.000Z";
const MINUTE = 60_000;

/** What every AppsRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function appsRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: apps repository (${dialect})`, () => {
    let store: TestStore;
    beforeEach(async () => {
      store = await openTestStore(open);
    });
    afterEach(() => store.database.close());

    const rawRow = (id: string) =>
      store.database.db.selectFrom("apps").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

    it("creates an active app with random ids, a one-time secret and clock timestamps", async () => {
      const { app, clientSecret } = await store.repos.apps.create({ name: "  Demo App " });
      expect(app.id).to.match(/^app_[0-9a-f]{24}$/);
      expect(app.clientId).to.match(/^cid_[0-9A-Za-z]{22}$/);
      expect(clientSecret).to.match(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
      expect(app).to.deep.equal({
        id: app.id,
        name: "Demo App",
        clientId: app.clientId,
        status: "active",
        testMode: false,
        delegatecallGranted: false,
        safeConfigGranted: false,
        policy: {},
        createdAt: T0,
        updatedAt: T0,
        secretRotatedAt: T0,
        secretGeneration: 0,
      });
      expect(await store.repos.apps.findById(app.id)).to.deep.equal(app);
      expect(await store.repos.apps.findByClientId(app.clientId)).to.deep.equal(app);
      expect((await store.repos.apps.create({ name: "T", testMode: true })).app.testMode).to.equal(true);
    });

    it("gives every app its own id, client id and secret", async () => {
      const a = await store.repos.apps.create({ name: "a" });
      const b = await store.repos.apps.create({ name: "b" });
      expect(a.app.id).to.not.equal(b.app.id);
      expect(a.app.clientId).to.not.equal(b.app.clientId);
      expect(a.clientSecret).to.not.equal(b.clientSecret);
    });

    it("refuses an empty name", async () => {
      const error = await store.repos.apps.create({ name: "   " }).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ZodError);
      expect(await store.repos.apps.list()).to.deep.equal([]);
    });

    it("stores only an HMAC-SHA256 of the secret, never the secret", async () => {
      const { app, clientSecret } = await store.repos.apps.create({ name: "Demo" });
      const row = await rawRow(app.id);
      expect(JSON.stringify(row)).to.not.include(clientSecret);
      const expected = createHmac("sha256", "idwallet client secret v1").update(clientSecret).digest("base64url");
      expect(row.secret_hash).to.equal(`hmac-sha256$${expected}`);
      expect(Object.keys(app)).to.not.include.members(["secretHash", "secret_hash", "clientSecret"]);
    });

    it("accepts a secret stored as an old scrypt hash, and rewrites it as HMAC-SHA256 on its first successful use", async () => {
      const { app } = await store.repos.apps.create({ name: "Legacy" });
      const secret = "a-secret-from-before-the-hmac-change-0123456";
      const legacy = scryptHash(secret);
      await store.database.db.updateTable("apps").set({ secret_hash: legacy }).where("id", "=", app.id).execute();
      expect(await store.repos.apps.verifySecret(app.clientId, "wrong")).to.equal(undefined);
      expect((await rawRow(app.id)).secret_hash).to.equal(legacy);
      expect((await store.repos.apps.verifySecret(app.clientId, secret))?.id).to.equal(app.id);
      expect((await rawRow(app.id)).secret_hash).to.equal(hashClientSecret(secret));
      expect((await store.repos.apps.verifySecret(app.clientId, secret))?.id).to.equal(app.id);
      expect(await store.repos.apps.verifySecret(app.clientId, "wrong")).to.equal(undefined);
    });

    it("verifies the right secret and refuses a wrong one, an unknown client id and a disabled app", async () => {
      const { app, clientSecret } = await store.repos.apps.create({ name: "Demo" });
      const other = await store.repos.apps.create({ name: "Other" });
      expect(await store.repos.apps.verifySecret(app.clientId, clientSecret)).to.deep.equal(app);
      expect(await store.repos.apps.verifySecret(app.clientId, other.clientSecret)).to.equal(undefined);
      expect(await store.repos.apps.verifySecret(app.clientId, "")).to.equal(undefined);
      expect(await store.repos.apps.verifySecret("cid_unknown", clientSecret)).to.equal(undefined);

      await store.repos.apps.setStatus(app.id, "disabled");
      expect(await store.repos.apps.verifySecret(app.clientId, clientSecret)).to.equal(undefined);
      await store.repos.apps.setStatus(app.id, "active");
      expect((await store.repos.apps.verifySecret(app.clientId, clientSecret))?.id).to.equal(app.id);
    });

    it("rotating the secret invalidates the old one, stamps the rotation and raises the secret generation", async () => {
      const { app, clientSecret } = await store.repos.apps.create({ name: "Demo" });
      const hashBefore = (await rawRow(app.id)).secret_hash;
      store.clock.advance(MINUTE);
      const rotated = await store.repos.apps.rotateSecret(app.id);
      const t1 = new Date(Date.parse(T0) + MINUTE).toISOString();
      expect(rotated.app).to.deep.equal({ ...app, updatedAt: t1, secretRotatedAt: t1, secretGeneration: 1 });
      expect(rotated.clientSecret).to.not.equal(clientSecret);
      expect((await rawRow(app.id)).secret_hash).to.not.equal(hashBefore);
      expect(await store.repos.apps.verifySecret(app.clientId, clientSecret)).to.equal(undefined);
      expect(await store.repos.apps.verifySecret(app.clientId, rotated.clientSecret)).to.deep.equal(rotated.app);
      expect((await store.repos.apps.rotateSecret(app.id)).app.secretGeneration).to.equal(2);
    });

    it("changes status and test mode, stamping updatedAt only", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      store.clock.advance(MINUTE);
      const t1 = new Date(Date.parse(T0) + MINUTE).toISOString();
      expect(await store.repos.apps.setStatus(app.id, "disabled")).to.deep.equal({
        ...app,
        status: "disabled",
        updatedAt: t1,
      });
      expect(await store.repos.apps.setTestMode(app.id, true)).to.deep.include({ testMode: true, status: "disabled" });
      expect((await store.repos.apps.setTestMode(app.id, false)).testMode).to.equal(false);
      expect(await store.repos.apps.findById(app.id)).to.deep.include({ status: "disabled", secretRotatedAt: T0 });
    });

    it("reads an app changed by another writer anew, even within the same millisecond: nothing stale is served", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      expect((await store.repos.apps.findById(app.id))!.status).to.equal("active");
      // Another process disables it without moving updated_at (the clock stands still): the row read differs.
      await store.database.db.updateTable("apps").set({ status: "disabled" }).where("id", "=", app.id).execute();
      expect((await store.repos.apps.findById(app.id))!.status).to.equal("disabled");
      await store.database.db.updateTable("apps").set({ secret_generation: 7 }).where("id", "=", app.id).execute();
      expect((await store.repos.apps.findById(app.id))!.secretGeneration).to.equal(7);
      await store.database.db
        .updateTable("apps")
        .set({ policy: JSON.stringify({ maxValueWei: "5" }) })
        .where("id", "=", app.id)
        .execute();
      const read = (await store.repos.apps.findById(app.id))!;
      expect(read.policy).to.deep.equal({ maxValueWei: 5n });
      // Handed to every request that reads the same row: no caller can change it for the others.
      expect(Object.isFrozen(read) && Object.isFrozen(read.policy)).to.equal(true);
    });

    it("stores an app's budget and policy settings and reads them back as set (empty: the defaults)", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      const settings = {
        budgetGas: 12_345_678_901_234n,
        periodSeconds: 3600,
        rate: { requests: 5, perSeconds: 1 as const },
        chains: ["localhost"],
        targets: ["0x00000000000000000000000000000000000000B2"],
        maxValueWei: 10n ** 18n,
        userDailyCapGas: 7_000_000n,
      };
      expect((await store.repos.apps.setPolicy(app.id, settings)).policy).to.deep.equal(settings);
      expect((await store.repos.apps.findById(app.id))!.policy).to.deep.equal(settings);
      expect((await store.repos.apps.setPolicy(app.id, {})).policy).to.deep.equal({});
      expect((await rawRow(app.id)).policy).to.equal(null);
    });

    it("grants and revokes delegatecall, stamping updatedAt only", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      store.clock.advance(MINUTE);
      const t1 = new Date(Date.parse(T0) + MINUTE).toISOString();
      expect(await store.repos.apps.setDelegatecallGrant(app.id, true)).to.deep.equal({
        ...app,
        delegatecallGranted: true,
        updatedAt: t1,
      });
      expect((await rawRow(app.id)).delegatecall_granted).to.equal(1);
      expect((await store.repos.apps.setDelegatecallGrant(app.id, false)).delegatecallGranted).to.equal(false);
      expect((await store.repos.apps.findById(app.id))?.delegatecallGranted).to.equal(false);
    });

    it("grants and revokes Safe configuration calls, apart from delegatecall, stamping updatedAt only", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      store.clock.advance(MINUTE);
      const t1 = new Date(Date.parse(T0) + MINUTE).toISOString();
      expect(app.safeConfigGranted).to.equal(false);
      expect(await store.repos.apps.setSafeConfigGrant(app.id, true)).to.deep.equal({
        ...app,
        safeConfigGranted: true,
        updatedAt: t1,
      });
      expect(await rawRow(app.id)).to.deep.include({ safe_config_granted: 1, delegatecall_granted: 0 });
      expect((await store.repos.apps.setSafeConfigGrant(app.id, false)).safeConfigGranted).to.equal(false);
      expect((await store.repos.apps.findById(app.id))?.safeConfigGranted).to.equal(false);
    });

    it("throws NotFoundError for an unknown id", async () => {
      for (const call of [
        () => store.repos.apps.setStatus("app_missing", "disabled"),
        () => store.repos.apps.setTestMode("app_missing", true),
        () => store.repos.apps.setDelegatecallGrant("app_missing", true),
        () => store.repos.apps.setSafeConfigGrant("app_missing", true),
        () => store.repos.apps.rotateSecret("app_missing"),
      ]) {
        const error = await call().catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(NotFoundError).and.deep.include({ entity: "app", id: "app_missing" });
      }
      expect(await store.repos.apps.findById("app_missing")).to.equal(undefined);
      expect(await store.repos.apps.findByClientId("cid_missing")).to.equal(undefined);
    });

    it("lists apps oldest first", async () => {
      expect(await store.repos.apps.list()).to.deep.equal([]);
      const first = await store.repos.apps.create({ name: "first" });
      store.clock.advance(MINUTE);
      const second = await store.repos.apps.create({ name: "second" });
      expect(await store.repos.apps.list()).to.deep.equal([first.app, second.app]);
    });

    it("parses rows read back and refuses a corrupt one", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      await store.database.db.updateTable("apps").set({ secret_generation: -1 }).where("id", "=", app.id).execute();
      const error = await store.repos.apps.findById(app.id).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ZodError);
    });

    it("lets no time that is not one reach the service: refused on write (PostgreSQL) or on read (SQLite)", async () => {
      const { app } = await store.repos.apps.create({ name: "Demo" });
      const error = await store.database.db
        .updateTable("apps")
        .set({ created_at: "not a time" })
        .where("id", "=", app.id)
        .execute()
        .then(() => store.repos.apps.findById(app.id))
        .catch((caught: unknown) => caught);
      const refused = error instanceof ZodError || /invalid input syntax for type timestamp/.test(String(error));
      expect(refused, String(error)).to.equal(true);
    });
  });
}
