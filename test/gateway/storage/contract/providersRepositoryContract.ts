import { expect } from "chai";
import { type UserProofDeps, checkUserProof } from "../../../../gateway/auth/userProof";
import { ApiError } from "../../../../gateway/errors/apiError";
import { parseUserId } from "../../../../gateway/identity/userId";
import { ProviderTakenError } from "../../../../gateway/identity/providersRepository";
import { type ProviderVerification } from "../../../../gateway/identity/providerRegistration";
import { createRepositories } from "../../../../gateway/storage/repositories";
import {
  TEST_PROVIDER_AUDIENCE,
  TEST_PROVIDER_ISSUER,
  hs256Proof,
  hs256Provider,
} from "../../../helpers/providerProofs";
import { type OpenTestDatabase, testKeyring } from "../builders";

const NOW = new Date("2026-11-22T12:00:00Z");
const SECRET = "acme-identity-service-secret-0123456789";

async function fresh(open: OpenTestDatabase) {
  const database = await open();
  const repos = createRepositories(database.db, () => NOW, { secrets: testKeyring() });
  const { app } = await repos.apps.create({ name: "acme" });
  return { database, repos, app };
}

/** The proof check over the repository, at NOW. */
const proofDeps = (repos: Awaited<ReturnType<typeof fresh>>["repos"]): UserProofDeps => ({
  verifyUserToken: async () => ({ userId: "" }),
  findProvider: (p) => repos.providers.find(p),
  providerProofMaxAgeSeconds: 3600,
  userTokensRequireApp: false,
  clock: () => NOW,
});

/** What every ProvidersRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function providersRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: app providers (${dialect})`, () => {
    it("registers a provider for one app, finds it back, and lets its proofs through the proof check", async () => {
      const { database, repos, app } = await fresh(open);
      await repos.providers.register(app.id, "acme", hs256Provider(SECRET));
      const found = await repos.providers.find("acme");
      expect(found).to.deep.include({
        provider: "acme",
        appId: app.id,
        issuer: TEST_PROVIDER_ISSUER,
        audience: TEST_PROVIDER_AUDIENCE,
      });
      const proof = await hs256Proof(SECRET, "alice", { now: NOW, expiresIn: 60 });
      await checkUserProof(
        parseUserId("acme:alice"),
        proof,
        { appId: app.id, testMode: false },
        { chainType: "production" },
        proofDeps(repos),
      );
      expect(await repos.providers.list()).to.deep.equal([
        {
          provider: "acme",
          appId: app.id,
          kind: "hs256",
          issuer: TEST_PROVIDER_ISSUER,
          audience: TEST_PROVIDER_AUDIENCE,
          createdAt: NOW.toISOString(),
          outdated: false,
        },
      ]);
      await database.close();
    });
    it("keeps provider names unique across apps, refuses built-in names and unknown apps", async () => {
      const { database, repos, app } = await fresh(open);
      const { app: other } = await repos.apps.create({ name: "other" });
      await repos.providers.register(app.id, "acme", {
        ...hs256Provider(SECRET),
        key: { kind: "jwks", url: "https://id.acme.test/jwks.json" },
      });
      let taken: unknown;
      await repos.providers.register(other.id, "acme", hs256Provider(SECRET)).catch((e: unknown) => (taken = e));
      expect(taken).to.be.instanceOf(ProviderTakenError);
      let builtIn: unknown;
      await repos.providers.register(app.id, "github", hs256Provider(SECRET)).catch((e: unknown) => (builtIn = e));
      expect(String(builtIn)).to.match(/built-in/);
      let unknownApp: unknown;
      await repos.providers
        .register("app_nobody", "acme2", hs256Provider(SECRET))
        .catch((e: unknown) => (unknownApp = e));
      expect(String(unknownApp)).to.match(/not found/);
      expect(await repos.providers.remove("acme")).to.equal(true);
      expect(await repos.providers.remove("acme")).to.equal(false);
      await database.close();
    });
    it("keeps a removed provider's name its app's: another app cannot take it, the same app re-enables it", async () => {
      const { database, repos, app } = await fresh(open);
      const { app: attacker } = await repos.apps.create({ name: "attacker" });
      await repos.providers.register(app.id, "acme", hs256Provider(SECRET));
      expect(await repos.providers.remove("acme")).to.equal(true);
      expect(await repos.providers.find("acme")).to.deep.include({ appId: app.id, disabled: true });
      expect(await repos.providers.registeredNames()).to.deep.equal([{ provider: "acme", enabled: false }]);
      let taken: unknown;
      await repos.providers
        .register(attacker.id, "acme", hs256Provider(`${SECRET}-attacker`))
        .catch((e: unknown) => (taken = e));
      expect(taken).to.be.instanceOf(ProviderTakenError);
      expect(await repos.providers.find("acme")).to.deep.include({
        appId: app.id,
        key: { kind: "hs256", secret: SECRET },
      });
      const rotated = `${SECRET}-rotated`;
      await repos.providers.register(app.id, "acme", hs256Provider(rotated));
      expect(await repos.providers.find("acme")).to.deep.include({
        appId: app.id,
        disabled: false,
        key: { kind: "hs256", secret: rotated },
      });
      expect(await repos.providers.registeredNames()).to.deep.equal([{ provider: "acme", enabled: true }]);
      await database.close();
    });
    it("refuses a registration without issuer or audience, or with a plain-http key set", async () => {
      const { database, repos, app } = await fresh(open);
      const refusal = (verification: object, options?: { allowInsecure?: boolean }) =>
        repos.providers.register(app.id, "acme", verification as ProviderVerification, options).then(
          () => "registered",
          (e: unknown) => String(e),
        );
      const jwks = (url: string) => ({ ...hs256Provider(SECRET), key: { kind: "jwks", url } });
      expect(await refusal({ key: { kind: "hs256", secret: SECRET }, audience: "a" })).to.match(
        /an issuer is required/,
      );
      expect(await refusal({ key: { kind: "hs256", secret: SECRET }, issuer: "i" })).to.match(
        /an audience is required/,
      );
      expect(await refusal(jwks("http://id.acme.test/jwks"))).to.match(/the JWKS URL must be https:\/\//);
      expect(await refusal(jwks("http://id.acme.test/jwks"), { allowInsecure: true })).to.match(
        /only for a loopback host .*, not id\.acme\.test/,
      );
      expect(await refusal(jwks("http://127.0.0.1:8080/jwks"))).to.match(/the JWKS URL must be https:\/\//);
      expect(await repos.providers.registeredNames()).to.deep.equal([]);
      expect(await refusal(jwks("http://127.0.0.1:8080/jwks"), { allowInsecure: true })).to.equal("registered");
      await database.close();
    });
    it("an outdated registration (no issuer or audience) keeps its name, refuses its proofs (403) until its owner adds it again", async () => {
      const { database, repos, app } = await fresh(open);
      const { app: attacker } = await repos.apps.create({ name: "attacker" });
      // As rows were stored before issuer and audience were required.
      await database.db
        .insertInto("app_providers")
        .values({
          provider: "acme",
          app_id: app.id,
          verification: JSON.stringify({ key: { kind: "hs256", secret: SECRET } }),
          created_at: NOW.toISOString(),
          disabled_at: null,
        })
        .execute();
      // What the service does at start-up to a secret an older version stored in plain text.
      await repos.providers.resealSecrets();
      const acting = { appId: app.id, testMode: false };
      const proof = await hs256Proof(SECRET, "alice", { now: NOW });
      const error = await checkUserProof(
        parseUserId("acme:alice"),
        proof,
        acting,
        { chainType: "production" },
        proofDeps(repos),
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(ApiError).and.include({ status: 403, code: "PROVIDER_REGISTRATION_OUTDATED" });
      expect(await repos.providers.list()).to.deep.equal([
        { provider: "acme", appId: app.id, kind: "hs256", createdAt: NOW.toISOString(), outdated: true },
      ]);
      let taken: unknown;
      await repos.providers.register(attacker.id, "acme", hs256Provider(SECRET)).catch((e: unknown) => (taken = e));
      expect(taken).to.be.instanceOf(ProviderTakenError);
      // The owner adds it again in place, without removing it (its ids never stop resolving).
      await repos.providers.register(app.id, "acme", hs256Provider(SECRET));
      await checkUserProof(parseUserId("acme:alice"), proof, acting, { chainType: "production" }, proofDeps(repos));
      let again: unknown;
      await repos.providers.register(app.id, "acme", hs256Provider(SECRET)).catch((e: unknown) => (again = e));
      expect(String(again)).to.match(/already registered/);
      await database.close();
    });
  });
}
