import { expect } from "chai";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SignJWT } from "jose";
import { checkUserProof } from "../../../gateway/auth/userProof";
import { parseUserId } from "../../../gateway/identity/userId";
import { openDatabase } from "../../../gateway/storage/database";
import { ProviderTakenError } from "../../../gateway/storage/providersRepository";
import { createRepositories } from "../../../gateway/storage/repositories";
import { runAdminCli } from "../../../scripts/admin/cli";
import { TEST_KEYS, testKeyring } from "./builders";

const NOW = new Date("2026-11-22T12:00:00Z");
const SECRET = "acme-identity-service-secret-0123456789";

async function fresh() {
  const database = await openDatabase(":memory:");
  const repos = createRepositories(database.db, () => NOW, { secrets: testKeyring() });
  const { app } = await repos.apps.create({ name: "acme" });
  return { database, repos, app };
}

describe("storage: app providers", () => {
  it("registers a provider for one app, finds it back, and lets its proofs through the proof check", async () => {
    const { database, repos, app } = await fresh();
    await repos.providers.register(app.id, "acme", { key: { kind: "hs256", secret: SECRET } });
    const found = await repos.providers.find("acme");
    expect(found).to.deep.include({ provider: "acme", appId: app.id });
    const proof = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setExpirationTime(NOW.getTime() / 1000 + 60)
      .sign(new TextEncoder().encode(SECRET));
    await checkUserProof(
      parseUserId("acme:alice"),
      proof,
      { appId: app.id, testMode: false },
      { chainType: "production" },
      {
        verifyUserToken: async () => ({ userId: "" }),
        findProvider: (p) => repos.providers.find(p),
        clock: () => NOW,
      },
    );
    expect(await repos.providers.list()).to.deep.equal([
      { provider: "acme", appId: app.id, kind: "hs256", createdAt: NOW.toISOString() },
    ]);
    await database.close();
  });

  it("keeps provider names unique across apps, refuses built-in names and unknown apps", async () => {
    const { database, repos, app } = await fresh();
    const { app: other } = await repos.apps.create({ name: "other" });
    await repos.providers.register(app.id, "acme", { key: { kind: "jwks", url: "https://id.acme.test/jwks.json" } });
    let taken: unknown;
    await repos.providers
      .register(other.id, "acme", { key: { kind: "hs256", secret: SECRET } })
      .catch((e: unknown) => (taken = e));
    expect(taken).to.be.instanceOf(ProviderTakenError);
    let builtIn: unknown;
    await repos.providers
      .register(app.id, "github", { key: { kind: "hs256", secret: SECRET } })
      .catch((e: unknown) => (builtIn = e));
    expect(String(builtIn)).to.match(/built-in/);
    let unknownApp: unknown;
    await repos.providers
      .register("app_nobody", "acme2", { key: { kind: "hs256", secret: SECRET } })
      .catch((e: unknown) => (unknownApp = e));
    expect(String(unknownApp)).to.match(/not found/);
    expect(await repos.providers.remove("acme")).to.equal(true);
    expect(await repos.providers.remove("acme")).to.equal(false);
    await database.close();
  });

  it("keeps a removed provider's name its app's: another app cannot take it, the same app re-enables it", async () => {
    const { database, repos, app } = await fresh();
    const { app: attacker } = await repos.apps.create({ name: "attacker" });
    await repos.providers.register(app.id, "acme", { key: { kind: "hs256", secret: SECRET } });
    expect(await repos.providers.remove("acme")).to.equal(true);
    expect(await repos.providers.find("acme")).to.deep.include({ appId: app.id, disabled: true });
    expect(await repos.providers.names()).to.deep.equal(["acme"]);
    let taken: unknown;
    await repos.providers
      .register(attacker.id, "acme", { key: { kind: "hs256", secret: `${SECRET}-attacker` } })
      .catch((e: unknown) => (taken = e));
    expect(taken).to.be.instanceOf(ProviderTakenError);
    expect(await repos.providers.find("acme")).to.deep.include({
      appId: app.id,
      key: { kind: "hs256", secret: SECRET },
    });
    const rotated = `${SECRET}-rotated`;
    await repos.providers.register(app.id, "acme", { key: { kind: "hs256", secret: rotated } });
    expect(await repos.providers.find("acme")).to.deep.include({
      appId: app.id,
      disabled: false,
      key: { kind: "hs256", secret: rotated },
    });
    await database.close();
  });

  it("is managed by the admin CLI, which reads the secret from a file and never prints it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-providers-"));
    const databasePath = path.join(dir, "idwallet.sqlite");
    const secretFile = path.join(dir, "secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const out: string[] = [];
    const cli = (...argv: string[]) =>
      runAdminCli(argv, {
        env: { DATABASE_PATH: databasePath, SECRETS_KEY: TEST_KEYS.current },
        output: { out: (t) => out.push(t), err: (t) => out.push(t) },
        clock: () => NOW,
      });
    expect(await cli("apps", "create", "acme")).to.equal(0);
    const appId = /id:\s+(app_\w+)/.exec(out.join("\n"))![1]!;
    expect(await cli("providers", "add", appId, "acme", "--hs256-secret-file", secretFile)).to.equal(0);
    expect(await cli("providers", "add", appId, "acme", "--jwks-url", "https://x.test/jwks")).to.equal(2);
    expect(await cli("providers", "add", appId, "acme2")).to.equal(2);
    expect(await cli("providers", "add", appId, "acme3", "--public-key-file", secretFile)).to.equal(2);
    expect(await cli("providers", "list")).to.equal(0);
    expect(out.join("\n")).to.match(/acme\s+app_\w+\s+hs256/);
    expect(out.join("\n")).to.not.include(SECRET);
    expect(await cli("providers", "remove", "acme")).to.equal(0);
    expect(await cli("providers", "remove", "acme")).to.equal(1);
  });

  it("takeover: after providers remove, another app's providers add of the name fails (exit 2, a clear message)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-providers-"));
    const secretFile = path.join(dir, "secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const out: string[] = [];
    const cli = (...argv: string[]) =>
      runAdminCli(argv, {
        env: { DATABASE_PATH: path.join(dir, "idwallet.sqlite"), SECRETS_KEY: TEST_KEYS.current },
        output: { out: (t) => out.push(t), err: (t) => out.push(t) },
        clock: () => NOW,
      });
    const appIds: string[] = [];
    for (const name of ["owner", "attacker"]) {
      expect(await cli("apps", "create", name)).to.equal(0);
      appIds.push(/id:\s+(app_\w+)/.exec(out.join("\n").split(name).at(-1)!)![1]!);
    }
    const [owner, attacker] = appIds as [string, string];
    expect(await cli("providers", "add", owner, "acme", "--hs256-secret-file", secretFile)).to.equal(0);
    expect(await cli("providers", "remove", "acme")).to.equal(0);
    out.length = 0;
    expect(await cli("providers", "add", attacker, "acme", "--hs256-secret-file", secretFile)).to.equal(2);
    expect(out.join("\n")).to.equal(
      `Error: the provider acme was registered by app ${owner}; a provider name is never given to another app`,
    );
    // The owner gets it back.
    expect(await cli("providers", "add", owner, "acme", "--hs256-secret-file", secretFile)).to.equal(0);
    out.length = 0;
    expect(await cli("providers", "list")).to.equal(0);
    expect(out.join("\n")).to.match(new RegExp(`acme\\s+${owner}\\s+hs256\\s+\\S+\\s+-`));
  });
});
