import { expect } from "chai";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { providerSecretsContract } from "./contract/providerSecretsContract";
import { TEST_PROVIDER_AUDIENCE, TEST_PROVIDER_ISSUER, hs256Provider } from "../../helpers/providerProofs";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { sql } from "kysely";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import golden from "../../vectors/addresses.json";
import { loadConfig } from "../../../gateway/config/load";
import { SecretsKeyError, createSecretsKeyring, decodeSecretsKey } from "../../../gateway/crypto/secretsKeyring";
import { startServer } from "../../../gateway/server";
import { openDatabase, type Database } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { runAdminCli } from "../../../scripts/admin/cli";
import { TEST_KEYS, testKeyring } from "./builders";

const NOW = new Date("2026-11-22T12:00:00Z");
const SECRET = "acme-identity-service-secret-0123456789";

const rawVerification = async (database: Database, provider: string): Promise<string> =>
  (
    await database.db
      .selectFrom("app_providers")
      .select("verification")
      .where("provider", "=", provider)
      .executeTakeFirstOrThrow()
  ).verification;

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The issuer and audience options every `providers add` needs. */
const CLAIMS = ["--issuer", TEST_PROVIDER_ISSUER, "--audience", TEST_PROVIDER_AUDIENCE];

describe("crypto: secrets keyring (AES-256-GCM)", () => {
  it("reads a 32-byte key as 64 hex digits, base64 or base64url, and nothing else", () => {
    const bytes = Buffer.alloc(32, 0xfb);
    for (const text of [bytes.toString("hex"), bytes.toString("base64"), bytes.toString("base64url")]) {
      expect(decodeSecretsKey(text), text).to.deep.equal(bytes);
    }
    for (const text of ["", "a1".repeat(31), "a1".repeat(33), Buffer.alloc(31).toString("base64"), "passphrase"]) {
      expect(decodeSecretsKey(text), text).to.equal(undefined);
    }
  });

  it("opens only what it sealed, for the same context, unaltered; a fresh IV each time", () => {
    const keyring = testKeyring();
    const a = keyring.seal(SECRET, "provider a");
    const b = keyring.seal(SECRET, "provider a");
    expect(a).to.not.equal(b);
    expect(a).to.match(/^v1\.[0-9a-f]{16}\.[\w-]{16}\.[\w-]+$/);
    expect(a).to.not.include(SECRET);
    expect(keyring.open(a, "provider a")).to.equal(SECRET);
    expect(() => keyring.open(a, "provider b")).to.throw(SecretsKeyError, /does not open/);
    const [version, keyId, iv, body] = a.split(".") as [string, string, string, string];
    const flipped = `${body.slice(0, 5)}${body[5] === "A" ? "B" : "A"}${body.slice(6)}`;
    expect(() => keyring.open([version, keyId, iv, flipped].join("."), "provider a")).to.throw(SecretsKeyError);
    expect(() => testKeyring(TEST_KEYS.other).open(a, "provider a")).to.throw(SecretsKeyError, /neither SECRETS_KEY/);
    expect(testKeyring(TEST_KEYS.other, TEST_KEYS.current).open(a, "provider a")).to.equal(SECRET);
    expect(createSecretsKeyring({})).to.equal(undefined);
  });
});

/** A database file holding provider acme's HS256 secret in plain text, as versions before sealing stored it. */
async function withPlainTextSecret(): Promise<{ databasePath: string; database: Database }> {
  const databasePath = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-secrets-")), "idwallet.sqlite");
  const database = await openDatabase(databasePath);
  const { app } = await createRepositories(database.db, () => NOW).apps.create({ name: "acme" });
  await database.db
    .insertInto("app_providers")
    .values({
      provider: "acme",
      app_id: app.id,
      verification: JSON.stringify(hs256Provider(SECRET)),
      created_at: NOW.toISOString(),
      disabled_at: null,
    })
    .execute();
  return { databasePath, database };
}

describe("provider secrets at start-up and in the admin CLI (real SQLite file)", () => {
  const configFor = (databasePath: string, secrets: Record<string, string>) =>
    loadConfig(
      {},
      {
        port: 0,
        testDeployment: true,
        databasePath,
        secrets,
        auth: { tokenSecret: "a-token-secret-of-at-least-32-characters" },
        contracts: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
      },
    );

  it("the service refuses to start on a plain-text secret without SECRETS_KEY, and seals it when started with one", async () => {
    const { databasePath, database } = await withPlainTextSecret();
    await database.close();
    const logger = pino({ level: "silent" });
    const refused = await rejection(startServer(configFor(databasePath, {}), { logger }));
    expect(String(refused)).to.match(/provider acme, .*set SECRETS_KEY/);
    const server = await startServer(configFor(databasePath, { key: TEST_KEYS.current }), { logger });
    await server.close();
    const reopened = await openDatabase(databasePath);
    try {
      expect(await rawVerification(reopened, "acme")).to.not.include(SECRET);
      const repos = createRepositories(reopened.db, () => NOW, { secrets: testKeyring() });
      expect((await repos.providers.find("acme"))?.key).to.deep.equal({ kind: "hs256", secret: SECRET });
    } finally {
      await reopened.close();
    }
  });

  it("a thief copying the database file (and its WAL) while the service runs finds no plain-text secret once sealed", async () => {
    const { databasePath, database } = await withPlainTextSecret();
    try {
      // A checkpoint copied the row into the file itself.
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
      await createRepositories(database.db, () => NOW).apps.create({ name: "later writes" });
      expect(readFileSync(databasePath).includes(SECRET)).to.equal(true);
      // The start-up seal, with the database still open (no checkpoint on close to help).
      const repos = createRepositories(database.db, () => NOW, { secrets: testKeyring() });
      expect(await repos.providers.resealSecrets()).to.deep.equal({ sealed: 1, resealed: 0 });
      for (const file of [databasePath, `${databasePath}-wal`]) {
        const bytes = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
        expect(bytes.includes(SECRET), file).to.equal(false);
      }
      expect((await repos.providers.find("acme"))?.key).to.deep.equal({ kind: "hs256", secret: SECRET });
    } finally {
      await database.close();
    }
  });

  it("providers add --hs256-secret-file without SECRETS_KEY exits 2 naming the setting, and stores nothing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-secrets-"));
    const secretFile = path.join(dir, "secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const out: string[] = [];
    const cli = (env: Record<string, string>, ...argv: string[]) =>
      runAdminCli(argv, {
        env: { DATABASE_PATH: path.join(dir, "idwallet.sqlite"), ...env },
        output: { out: (t) => out.push(t), err: (t) => out.push(t) },
        clock: () => NOW,
      });
    expect(await cli({}, "apps", "create", "acme")).to.equal(0);
    const appId = /id:\s+(app_\w+)/.exec(out.join("\n"))![1]!;
    out.length = 0;
    expect(await cli({}, "providers", "add", appId, "acme", "--hs256-secret-file", secretFile, ...CLAIMS)).to.equal(2);
    expect(out.join("\n")).to.match(/^Error: .*SECRETS_KEY/);
    expect(await cli({ SECRETS_KEY: "too-short" }, "providers", "list")).to.equal(2);
    expect(out.at(-1)).to.match(/^Error: SECRETS_KEY: 32 random bytes/);
    out.length = 0;
    expect(await cli({}, "providers", "list")).to.equal(0);
    expect(out).to.deep.equal(["No providers."]);
    expect(
      await cli(
        { SECRETS_KEY: TEST_KEYS.current },
        "providers",
        "add",
        appId,
        "acme",
        "--hs256-secret-file",
        secretFile,
        ...CLAIMS,
      ),
    ).to.equal(0);
  });

  it("the admin CLI run with another SECRETS_KEY than the stored secrets' refuses to seal (exit 2), and a PEM key as an HS256 secret", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "idwallet-secrets-"));
    const secretFile = path.join(dir, "secret");
    writeFileSync(secretFile, `${SECRET}\n`);
    const pemFile = path.join(dir, "public.pem");
    writeFileSync(
      pemFile,
      "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n",
    );
    const out: string[] = [];
    const cli = (key: string, ...argv: string[]) =>
      runAdminCli(argv, {
        env: { DATABASE_PATH: path.join(dir, "idwallet.sqlite"), SECRETS_KEY: key },
        output: { out: (t) => out.push(t), err: (t) => out.push(t) },
        clock: () => NOW,
      });
    expect(await cli(TEST_KEYS.current, "apps", "create", "acme")).to.equal(0);
    const appId = /id:\s+(app_\w+)/.exec(out.join("\n"))![1]!;
    const add = (key: string, provider: string, file = secretFile) =>
      cli(key, "providers", "add", appId, provider, "--hs256-secret-file", file, ...CLAIMS);
    expect(await add(TEST_KEYS.current, "acme")).to.equal(0);
    out.length = 0;
    expect(await add(TEST_KEYS.other, "acme-two")).to.equal(2);
    expect(out.join("\n")).to.match(/^Error: SECRETS_KEY does not open the secrets already stored .*provider acme/);
    out.length = 0;
    expect(await add(TEST_KEYS.current, "acme-pem", pemFile)).to.equal(2);
    expect(out.join("\n")).to.match(/holds a PEM key/);
    out.length = 0;
    expect(await cli(TEST_KEYS.current, "providers", "list")).to.equal(0);
    expect(out.join("\n")).to.not.match(/acme-two|acme-pem/);
  });
});

providerSecretsContract("SQLite", () => openDatabase(":memory:"));
providerSecretsContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("provider_secrets")));

describe("provider secrets at rest on PostgreSQL (the table's pages)", () => {
  it("a thief reading the table's pages finds no plain-text secret once sealed: the old row version is vacuumed", async () => {
    const database = await openDatabase(await freshPostgresDatabase("secret_pages"));
    try {
      const { db } = database;
      // The test server's user is a superuser; pageinspect reads a page as it lies in the table's file.
      await sql`create extension pageinspect`.execute(db);
      const pagesHold = async (text: string) => {
        const { rows } = await sql<{ page: Buffer }>`
          select get_raw_page('app_providers', n::int) as page
          from generate_series(0, pg_relation_size('app_providers') / current_setting('block_size')::int - 1) as n`.execute(
          db,
        );
        return rows.some((row) => row.page.includes(text));
      };
      const { app } = await createRepositories(db, () => NOW).apps.create({ name: "acme" });
      await db
        .insertInto("app_providers")
        .values({
          provider: "acme",
          app_id: app.id,
          verification: JSON.stringify(hs256Provider(SECRET)),
          created_at: NOW.toISOString(),
          disabled_at: null,
        })
        .execute();
      expect(await pagesHold(SECRET)).to.equal(true);
      const repos = createRepositories(db, () => NOW, { secrets: testKeyring() });
      expect(await repos.providers.resealSecrets()).to.deep.equal({ sealed: 1, resealed: 0 });
      expect(await pagesHold(SECRET)).to.equal(false);
      expect((await repos.providers.find("acme"))?.key).to.deep.equal({ kind: "hs256", secret: SECRET });
    } finally {
      await database.close();
    }
  });
});
