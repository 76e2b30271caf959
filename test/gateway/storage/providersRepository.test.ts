import { expect } from "chai";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { providersRepositoryContract } from "./contract/providersRepositoryContract";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { runAdminCli } from "../../../scripts/admin/cli";
import {
  DEMO_PROVIDER,
  DEMO_PROVIDER_AUDIENCE,
  DEMO_PROVIDER_ISSUER,
  prepareDemoApp,
} from "../../../scripts/localStack/demoApp";
import { TEST_PROVIDER_AUDIENCE, TEST_PROVIDER_ISSUER } from "../../helpers/providerProofs";
import { TEST_KEYS, testKeyring } from "./builders";

const NOW = new Date("2026-11-22T12:00:00Z");
const SECRET = "acme-identity-service-secret-0123456789";

/** The admin CLI on a fresh database file, with everything it writes kept in `out`, and a secret file. */
function adminCli() {
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-providers-"));
  const secretFile = path.join(dir, "secret");
  writeFileSync(secretFile, `${SECRET}\n`);
  const databasePath = path.join(dir, "idwallet.sqlite");
  const out: string[] = [];
  const cli = (...argv: string[]) =>
    runAdminCli(argv, {
      env: { DATABASE_PATH: databasePath, SECRETS_KEY: TEST_KEYS.current },
      output: { out: (t) => out.push(t), err: (t) => out.push(t) },
      clock: () => NOW,
    });
  return { cli, out, secretFile, databasePath };
}

/** The issuer and audience options every `providers add` needs. */
const CLAIMS = ["--issuer", TEST_PROVIDER_ISSUER, "--audience", TEST_PROVIDER_AUDIENCE];

describe("storage: app providers", () => {
  it("is managed by the admin CLI, which reads the secret from a file and never prints it", async () => {
    const { cli, out, secretFile } = adminCli();
    expect(await cli("apps", "create", "acme")).to.equal(0);
    const appId = /id:\s+(app_\w+)/.exec(out.join("\n"))![1]!;
    expect(await cli("providers", "add", appId, "acme", "--hs256-secret-file", secretFile, ...CLAIMS)).to.equal(0);
    expect(await cli("providers", "add", appId, "acme", "--jwks-url", "https://x.test/jwks", ...CLAIMS)).to.equal(2);
    expect(await cli("providers", "add", appId, "acme2", ...CLAIMS)).to.equal(2);
    expect(await cli("providers", "add", appId, "acme3", "--public-key-file", secretFile, ...CLAIMS)).to.equal(2);
    expect(await cli("providers", "list")).to.equal(0);
    expect(out.join("\n")).to.match(
      new RegExp(`acme\\s+app_\\w+\\s+hs256\\s+\\S+\\s+-\\s+${TEST_PROVIDER_ISSUER}\\s+${TEST_PROVIDER_AUDIENCE}`),
    );
    expect(out.join("\n")).to.not.include(SECRET);
    expect(await cli("providers", "remove", "acme")).to.equal(0);
    expect(await cli("providers", "remove", "acme")).to.equal(1);
  });

  it("takeover: after providers remove, another app's providers add of the name fails (exit 2, a clear message)", async () => {
    const { cli, out, secretFile } = adminCli();
    const appIds: string[] = [];
    for (const name of ["owner", "attacker"]) {
      expect(await cli("apps", "create", name)).to.equal(0);
      appIds.push(/id:\s+(app_\w+)/.exec(out.join("\n").split(name).at(-1)!)![1]!);
    }
    const [owner, attacker] = appIds as [string, string];
    expect(await cli("providers", "add", owner, "acme", "--hs256-secret-file", secretFile, ...CLAIMS)).to.equal(0);
    expect(await cli("providers", "remove", "acme")).to.equal(0);
    out.length = 0;
    expect(await cli("providers", "add", attacker, "acme", "--hs256-secret-file", secretFile, ...CLAIMS)).to.equal(2);
    expect(out.join("\n")).to.equal(
      `Error: the provider acme was registered by app ${owner}; a provider name is never given to another app`,
    );
    // The owner gets it back.
    expect(await cli("providers", "add", owner, "acme", "--hs256-secret-file", secretFile, ...CLAIMS)).to.equal(0);
    out.length = 0;
    expect(await cli("providers", "list")).to.equal(0);
    expect(out.join("\n")).to.match(new RegExp(`acme\\s+${owner}\\s+hs256\\s+\\S+\\s+-`));
  });

  it("an http:// JWKS URL and a JWKS without issuer are refused by the CLI (exit 2, nothing registered)", async () => {
    const { cli, out, secretFile } = adminCli();
    expect(await cli("apps", "create", "acme")).to.equal(0);
    const appId = /id:\s+(app_\w+)/.exec(out.join("\n"))![1]!;
    const add = (...options: string[]) => cli("providers", "add", appId, "acme", ...options);
    const refused: ReadonlyArray<readonly [string[], string]> = [
      [
        ["--jwks-url", "http://id.acme.example/jwks", ...CLAIMS],
        "the JWKS URL must be https:// (over http:// anyone on the network path can swap the keys); " +
          "--allow-insecure admits http:// for a loopback host (localhost, 127.0.0.0/8, ::1) only",
      ],
      [
        ["--jwks-url", "http://id.acme.example/jwks", "--allow-insecure", ...CLAIMS],
        "--allow-insecure admits http:// only for a loopback host (localhost, 127.0.0.0/8, ::1), not id.acme.example",
      ],
      [
        ["--jwks-url", "https://id.acme.example/jwks", "--audience", TEST_PROVIDER_AUDIENCE],
        "--issuer is required: the iss every proof of this provider must carry (without it, a token the same key " +
          "signed for another tenant, such as another project of a shared identity service, would pass)",
      ],
      [["--jwks-url", "https://id.acme.example/jwks", "--issuer", TEST_PROVIDER_ISSUER], "--audience is required"],
      [["--hs256-secret-file", secretFile], "--issuer is required"],
      [["--hs256-secret-file", secretFile, "--issuer", "", "--audience", "a"], "--issuer is required"],
      [["--public-key-file", secretFile, "--alg", "ES256", "--issuer", TEST_PROVIDER_ISSUER], "--audience is required"],
      [
        ["--hs256-secret-file", secretFile, "--allow-insecure", ...CLAIMS],
        "--allow-insecure applies only to --jwks-url",
      ],
    ];
    for (const [options, message] of refused) {
      out.length = 0;
      expect(await add(...options), options.join(" ")).to.equal(2);
      expect(out.join("\n").split("\n")[0]).to.satisfy((line: string) => line.startsWith(`Error: ${message}`));
    }
    out.length = 0;
    expect(await cli("providers", "list")).to.equal(0);
    expect(out).to.deep.equal(["No providers."]);
    // A local identity service in development: plain http to a loopback host, when asked for.
    for (const [name, url] of [
      ["acme", "http://127.0.0.1:8080/jwks"],
      ["acme-v6", "http://[::1]:8080/jwks"],
      ["acme-host", "http://localhost:8080/jwks"],
    ] as const)
      expect(await cli("providers", "add", appId, name, "--jwks-url", url, "--allow-insecure", ...CLAIMS)).to.equal(0);
  });

  it("providers list warns of outdated registrations, and providers add again brings one up to date", async () => {
    const { cli, out, secretFile, databasePath } = adminCli();
    expect(await cli("apps", "create", "acme")).to.equal(0);
    const appId = /id:\s+(app_\w+)/.exec(out.join("\n"))![1]!;
    const database = await openDatabase(databasePath);
    await database.db
      .insertInto("app_providers")
      .values({
        provider: "acme",
        app_id: appId,
        verification: JSON.stringify({ key: { kind: "jwks", url: "http://id.acme.example/jwks" } }),
        created_at: NOW.toISOString(),
        disabled_at: null,
      })
      .execute();
    await database.close();
    out.length = 0;
    expect(await cli("providers", "list")).to.equal(0);
    expect(out[0]).to.match(new RegExp(`acme\\s+${appId}\\s+jwks\\s+\\S+\\s+-\\s+-\\s+-$`, "m"));
    expect(out[1]).to.equal(
      "Proofs of acme are refused (PROVIDER_REGISTRATION_OUTDATED): registered without an issuer and audience, or " +
        "with a plain-http key set. Run providers add again for each, with --issuer and --audience (and an https key set).",
    );
    expect(await cli("providers", "add", appId, "acme", "--hs256-secret-file", secretFile, ...CLAIMS)).to.equal(0);
    out.length = 0;
    expect(await cli("providers", "list")).to.equal(0);
    expect(out).to.have.length(1);
  });

  it("the local stack's demo app brings a demo provider an older start registered without issuer up to date", async () => {
    const { databasePath } = adminCli();
    const secrets = { key: TEST_KEYS.current };
    const first = await prepareDemoApp({ databasePath, secrets, dataDir: path.dirname(databasePath) });
    const database = await openDatabase(databasePath);
    const repos = createRepositories(database.db, () => NOW, { secrets: testKeyring() });
    const appId = (await repos.apps.list())[0]!.id;
    expect(await repos.providers.find(DEMO_PROVIDER)).to.deep.include({
      issuer: DEMO_PROVIDER_ISSUER,
      audience: DEMO_PROVIDER_AUDIENCE,
    });
    await database.db
      .updateTable("app_providers")
      .set({ verification: JSON.stringify({ key: { kind: "hs256", secret: SECRET } }) })
      .execute();
    await database.close();
    const again = await prepareDemoApp({ databasePath, secrets, dataDir: path.dirname(databasePath) });
    expect(again.clientId).to.equal(first.clientId);
    const reopened = await openDatabase(databasePath);
    const found = await createRepositories(reopened.db, () => NOW, { secrets: testKeyring() }).providers.find(
      DEMO_PROVIDER,
    );
    expect(found).to.deep.include({ appId, issuer: DEMO_PROVIDER_ISSUER, audience: DEMO_PROVIDER_AUDIENCE });
    await reopened.close();
  });
});

providersRepositoryContract("SQLite", () => openDatabase(":memory:"));
providersRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("providers")));
