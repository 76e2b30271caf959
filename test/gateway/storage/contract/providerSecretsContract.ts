import { expect } from "chai";
import { TEST_PROVIDER_AUDIENCE, TEST_PROVIDER_ISSUER, hs256Provider } from "../../../helpers/providerProofs";
import { SecretsKeyError } from "../../../../gateway/crypto/secretsKeyring";
import type { Database } from "../../../../gateway/storage/database";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { type OpenTestDatabase, TEST_KEYS, testKeyring } from "../builders";

const NOW = new Date("2026-11-22T12:00:00Z");
const SECRET = "acme-identity-service-secret-0123456789";
const ATTACKER_SECRET = "attacker-identity-service-secret-012345";

/** The stored verification JSON of `provider`, as an attacker reading the table sees it. */
export const rawVerification = async (database: Database, provider: string): Promise<string> =>
  (
    await database.db
      .selectFrom("app_providers")
      .select("verification")
      .where("provider", "=", provider)
      .executeTakeFirstOrThrow()
  ).verification;

const setRawVerification = (database: Database, provider: string, verification: string) =>
  database.db.updateTable("app_providers").set({ verification }).where("provider", "=", provider).execute();

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** How every ProvidersRepository keeps HS256 secrets, on a fresh migrated database per test from `open`. */
export function providerSecretsContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: provider secrets at rest (${dialect})`, () => {
    let database: Database;
    beforeEach(async () => {
      database = await open();
    });
    afterEach(() => database.close());

    const reposWith = (secrets = testKeyring()) => createRepositories(database.db, () => NOW, { secrets });

    it("stores an HS256 secret only sealed under SECRETS_KEY, never in plain text, and opens it back", async () => {
      const repos = reposWith();
      const { app } = await repos.apps.create({ name: "acme" });
      await repos.providers.register(app.id, "acme", {
        key: { kind: "hs256", secret: SECRET },
        issuer: "https://id",
        audience: "idwallet",
      });
      const stored = JSON.parse(await rawVerification(database, "acme"));
      expect(JSON.stringify(stored)).to.not.include(SECRET);
      expect(stored).to.deep.include({ issuer: "https://id" });
      expect(stored.key.kind).to.equal("hs256");
      expect(stored.key.sealedSecret.split(".")[1]).to.equal(testKeyring().currentKeyId);
      expect(await repos.providers.find("acme")).to.deep.include({
        key: { kind: "hs256", secret: SECRET },
        issuer: "https://id",
        audience: "idwallet",
      });
    });

    it("an attacker who can write the database cannot move a sealed secret to their own provider or app", async () => {
      const repos = reposWith();
      const { app: victim } = await repos.apps.create({ name: "victim" });
      const { app: attacker } = await repos.apps.create({ name: "attacker" });
      await repos.providers.register(victim.id, "acme", hs256Provider(SECRET));
      await repos.providers.register(attacker.id, "evil", hs256Provider(ATTACKER_SECRET));
      // The victim's sealed secret copied into the attacker's row does not open there.
      await setRawVerification(database, "evil", await rawVerification(database, "acme"));
      expect(await rejection(repos.providers.find("evil"))).to.be.instanceOf(SecretsKeyError);
      // Nor does the victim's row once handed to the attacker's app.
      await database.db
        .updateTable("app_providers")
        .set({ app_id: attacker.id })
        .where("provider", "=", "acme")
        .execute();
      expect(String(await rejection(repos.providers.find("acme")))).to.match(/provider acme: .*does not open/);
    });

    it("rotates SECRETS_KEY: SECRETS_KEY_PREVIOUS opens the old secrets until they are sealed again under the new key", async () => {
      const old = reposWith(testKeyring(TEST_KEYS.current));
      const { app } = await old.apps.create({ name: "acme" });
      await old.providers.register(app.id, "acme", hs256Provider(SECRET));
      await old.providers.register(app.id, "acme-jwks", {
        key: { kind: "jwks", url: "https://id.acme.test/jwks" },
        issuer: TEST_PROVIDER_ISSUER,
        audience: TEST_PROVIDER_AUDIENCE,
      });
      const rotating = reposWith(testKeyring(TEST_KEYS.other, TEST_KEYS.current));
      expect((await rotating.providers.find("acme"))?.key).to.deep.equal({ kind: "hs256", secret: SECRET });
      expect(await rotating.providers.resealSecrets()).to.deep.equal({ sealed: 0, resealed: 1 });
      expect(await rotating.providers.resealSecrets()).to.deep.equal({ sealed: 0, resealed: 0 });
      const sealed = JSON.parse(await rawVerification(database, "acme")).key.sealedSecret as string;
      expect(sealed.split(".")[1]).to.equal(testKeyring(TEST_KEYS.other).currentKeyId);
      // The old key can be retired; the old key alone no longer opens anything.
      expect((await reposWith(testKeyring(TEST_KEYS.other)).providers.find("acme"))?.key).to.deep.equal({
        kind: "hs256",
        secret: SECRET,
      });
      expect(await rejection(old.providers.find("acme"))).to.be.instanceOf(SecretsKeyError);
    });

    it("seals a plain-text secret an older version stored, and refuses to use it before that", async () => {
      const repos = reposWith();
      const { app } = await repos.apps.create({ name: "acme" });
      await repos.providers.register(app.id, "acme", {
        key: { kind: "jwks", url: "https://id.acme.test/jwks" },
        issuer: TEST_PROVIDER_ISSUER,
        audience: TEST_PROVIDER_AUDIENCE,
      });
      await setRawVerification(database, "acme", JSON.stringify(hs256Provider(SECRET)));
      expect(String(await rejection(repos.providers.find("acme")))).to.match(/plain text/);
      expect(await repos.providers.resealSecrets()).to.deep.equal({ sealed: 1, resealed: 0 });
      expect(await rawVerification(database, "acme")).to.not.include(SECRET);
      expect((await repos.providers.find("acme"))?.key).to.deep.equal({ kind: "hs256", secret: SECRET });
    });

    it("without SECRETS_KEY: an HS256 provider is refused and nothing stored; other kinds need no key", async () => {
      const keyless = createRepositories(database.db, () => NOW);
      const { app } = await keyless.apps.create({ name: "acme" });
      const refused = await rejection(keyless.providers.register(app.id, "acme", hs256Provider(SECRET)));
      expect(refused).to.be.instanceOf(SecretsKeyError);
      expect(String(refused)).to.include("SECRETS_KEY");
      expect(await keyless.providers.registeredNames()).to.deep.equal([]);
      await keyless.providers.register(app.id, "acme-jwks", {
        key: { kind: "jwks", url: "https://id.acme.test/jwks" },
        issuer: TEST_PROVIDER_ISSUER,
        audience: TEST_PROVIDER_AUDIENCE,
      });
      expect(await keyless.providers.resealSecrets()).to.deep.equal({ sealed: 0, resealed: 0 });
      // Once an HS256 secret is stored, a keyless start-up is refused, naming it.
      await reposWith().providers.register(app.id, "acme", hs256Provider(SECRET));
      expect(String(await rejection(keyless.providers.resealSecrets()))).to.match(/provider acme, .*set SECRETS_KEY/);
      expect(await keyless.providers.list()).to.have.length(2);
    });
  });
}
