import { expect } from "chai";
import { sql } from "kysely";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase } from "../../../gateway/storage/database";
import { COPIED_TABLES } from "../../../gateway/storage/databaseCopy";
import { createRepositories, type Repositories } from "../../../gateway/storage/repositories";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT, type AdminOutput } from "../../../scripts/admin/commands";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { auditEntries } from "../custody/auditBuilders";
import { TEST_KEYS, testKeyring } from "../storage/builders";

const NOW = new Date("2026-11-22T12:00:00.000Z");
const SAFE = "0x5AFE000000000000000000000000000000000001";
const HS256_SECRET = "a provider's shared secret, sealed at rest";

function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

/** `npm run admin -- <argv>` in-process, with the service's SECRETS_KEY. */
async function admin(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const output = captureOutput();
  const code = await runAdminCli(argv, { env: { SECRETS_KEY: TEST_KEYS.current, ...env }, output, clock: () => NOW });
  return { code, stdout: output.stdout.join("\n"), stderr: output.stderr.join("\n") };
}

/** The signature audit log, oldest first. */
async function allRows(repos: Repositories) {
  const rows = [];
  for await (const row of repos.auditLog.rows()) rows.push(row);
  return rows;
}

/** What the repositories read back of everything `populate` stored. */
async function readBack(repos: Repositories, ids: Awaited<ReturnType<typeof populate>>) {
  return {
    app: await repos.apps.findById(ids.appId),
    maintenance: await repos.settings.getMaintenance(),
    provider: await repos.providers.find("acme"),
    wallet: await repos.transactions.find(ids.walletTx),
    safeTx: await repos.transactions.find(ids.safeTx),
    safe: await repos.safes.find("localhost", SAFE),
    bundles: await repos.transactions.pendingBundles("localhost"),
    spend: await repos.transactions.spendSince(new Map([[ids.appId, new Date(0)]])),
    otp: await repos.otp.attempt("14155552671", NOW, (state) => ({ result: state })),
    leases: await repos.workerLeases.list(),
    tokens: await repos.dust.tokens("localhost"),
    prices: await repos.dust.prices("localhost"),
    order: await repos.dust.findOrder(ids.order),
    audit: await allRows(repos),
  };
}

/** A SQLite database with a row in every table, written by the service's own repositories. */
async function populate(repos: Repositories) {
  const { app } = await repos.apps.create({ name: "acme" });
  await repos.settings.setMaintenance(true, "moving to PostgreSQL");
  await repos.providers.register(app.id, "acme", {
    key: { kind: "hs256", secret: HS256_SECRET },
    issuer: "https://id.acme.test",
    audience: "idwallet",
  });
  const issued = await repos.otp.issue(
    {
      phone: "14155552671",
      codeHash: "ab".repeat(32),
      createdAt: NOW.toISOString(),
      expiresAt: "2026-11-22T12:10:00.000Z",
    },
    new Date(NOW.getTime() - 3_600_000),
    () => undefined,
  );
  expect(issued).to.have.property("issued");
  const calls = [{ to: "0x1000000000000000000000000000000000000002", value: 5n, data: "0xabcd" }];
  const common = { appId: app.id, chain: "localhost", calls, delegatecall: false, requestHash: "h", reservedGas: 100n };
  const wallet = await repos.transactions.create({
    ...common,
    accountType: "kernel",
    userId: "acme:alice",
    sender: "0x00000000000000000000000000000000000000A1",
    idempotencyKey: "order-1",
  });
  const safe = await repos.safes.create(
    {
      chain: "localhost",
      address: SAFE,
      appId: app.id,
      owners: ["0x00000000000000000000000000000000000000A1"],
      saltNonce: 7n,
      singleton: "0x1000000000000000000000000000000000000001",
      proxyFactory: "0x1000000000000000000000000000000000000002",
      fallbackHandler: "0x1000000000000000000000000000000000000003",
    },
    { ...common, accountType: "safe", sender: SAFE, idempotencyKey: undefined, safeAction: "create" },
  );
  const safeTxId = safe.record.id;
  await repos.transactions.recordBundle(
    {
      chain: "localhost",
      relayer: "0x00000000000000000000000000000000000000B2",
      nonce: 3,
      txHash: `0x${"cd".repeat(32)}`,
      rawTx: "0x02f8",
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    },
    [{ txId: safeTxId, safeTx: undefined }],
  );
  await repos.rateWindows.hit(app.id, NOW);
  await repos.limitCounters.hit("otp.request.ip", "203.0.113.0/24", NOW, new Date(NOW.getTime() + 3_600_000));
  const token = "0x2000000000000000000000000000000000000001";
  await repos.dust.putToken({ chain: "localhost", address: token, symbol: "DEMO", decimals: 18, listing: "sweepable" });
  await repos.dust.putPrice({ chain: "localhost", asset: token, usd: 0.5 });
  const order = await repos.dust.createOrder({
    chain: "localhost",
    maker: "0x00000000000000000000000000000000000000A1",
    token,
    amount: 10n ** 18n,
    tx: `0x${"ef".repeat(32)}`,
    createdAt: NOW.toISOString(),
  });
  await repos.auditLog.append(auditEntries(3), NOW);
  const lease = await repos.workerLeases.acquire(
    "tx:localhost",
    { id: "sqlite-host", host: "old", pid: 1, pidNamespace: "boot/pid:[1]" },
    60_000,
    () => false,
  );
  expect(lease).to.not.equal(undefined);
  return { appId: app.id, walletTx: wallet.record.id, safeTx: safeTxId, order: order.id };
}

describe("admin CLI: db copy (SQLite → PostgreSQL)", function () {
  this.timeout(60_000);
  let file: string;
  let ids: Awaited<ReturnType<typeof populate>>;
  let stored: Awaited<ReturnType<typeof readBack>>;

  before(async () => {
    file = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-copy-")), "idwallet.sqlite");
    const source = await openDatabase(file);
    try {
      const repos = createRepositories(source.db, () => NOW, { secrets: testKeyring() });
      ids = await populate(repos);
      stored = await readBack(repos, ids);
    } finally {
      await source.close();
    }
  });

  it("copies every table, prints the row counts, and the service's repositories read the same things back", async () => {
    const url = await freshPostgresDatabase("copy_full");
    const copied = await admin(["db", "copy", "--to", url], { DATABASE_PATH: file });
    expect(copied.stderr).to.equal("");
    expect(copied.code).to.equal(EXIT.ok);
    for (const table of COPIED_TABLES) expect(copied.stdout).to.match(new RegExp(`^${table}\\s+\\d+$`, "m"));
    expect(copied.stdout).to.match(/^signature_audit\s+3$/m);
    expect(copied.stdout).to.match(/^transactions\s+2$/m);
    expect(copied.stdout).to.match(/^signature_audit_mark\s+1$/m);
    const target = await openDatabase(url);
    try {
      const repos = createRepositories(target.db, () => NOW, { secrets: testKeyring() });
      const after = await readBack(repos, ids);
      expect(after).to.deep.equal(stored);
      // Every table, every column: the same rows (each side ordered by all its columns).
      for (const table of COPIED_TABLES) {
        const source = await openDatabase(file);
        try {
          const rows = async (db: typeof target.db) =>
            (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows
              .map((row) => JSON.stringify(Object.entries(row).sort()))
              .sort();
          expect(await rows(target.db), table).to.deep.equal(await rows(source.db));
        } finally {
          await source.close();
        }
      }
      // The sealed secret was copied sealed, and opens with the same SECRETS_KEY.
      expect(after.provider?.key).to.deep.include({ kind: "hs256", secret: HS256_SECRET });
      // A shared limit's window goes on counting where SQLite left it.
      const hit = await repos.limitCounters.hit("otp.request.ip", "203.0.113.0/24", NOW, new Date(NOW.getTime() + 1));
      expect(hit).to.deep.equal({ count: 2, windowEnd: new Date(NOW.getTime() + 3_600_000) });
      // The highest seq given out came along: the next signature logged continues the chain at seq 4.
      expect(await repos.auditLog.highestSeq()).to.equal(3);
      const [next] = await repos.auditLog.append(auditEntries(1, 4), NOW);
      expect(next).to.deep.include({ seq: 4, prevHash: stored.audit[2]!.hash });
    } finally {
      await target.close();
    }
    const verified = await admin(["--db", url, "audit", "verify"]);
    expect(verified.stderr).to.equal("");
    expect(verified.stdout).to.include("The signature audit log verifies: 4 row(s).");
  });

  it("copies a table of several batches whole (2,500 rows, at most 1,000 a batch)", async () => {
    const big = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-copy-")), "idwallet.sqlite");
    const source = await openDatabase(big);
    try {
      const { app } = await createRepositories(source.db, () => NOW).apps.create({ name: "busy" });
      const windows = Array.from({ length: 2_500 }, (_, i) => ({
        app_id: app.id,
        window_start: new Date(NOW.getTime() + i * 60_000).toISOString(),
        count: i,
      }));
      for (let i = 0; i < windows.length; i += 500) {
        await source.db
          .insertInto("app_rate_windows")
          .values(windows.slice(i, i + 500))
          .execute();
      }
    } finally {
      await source.close();
    }
    const url = await freshPostgresDatabase("copy_batches");
    const copied = await admin(["db", "copy", "--to", url], { DATABASE_PATH: big });
    expect(copied.code, copied.stderr).to.equal(EXIT.ok);
    expect(copied.stdout).to.match(/^app_rate_windows\s+2500$/m);
    const target = await openDatabase(url);
    try {
      const sum = await target.db
        .selectFrom("app_rate_windows")
        .select((eb) => eb.fn.sum<number>("count").as("total"))
        .executeTakeFirstOrThrow();
      expect(Number(sum.total)).to.equal((2_499 * 2_500) / 2);
    } finally {
      await target.close();
    }
  });

  it("refuses a target that is not empty, and changes nothing in it", async () => {
    const url = await freshPostgresDatabase("copy_nonempty");
    const target = await openDatabase(url);
    try {
      await createRepositories(target.db, () => NOW).apps.create({ name: "already-here" });
    } finally {
      await target.close();
    }
    const refused = await admin(["db", "copy", "--to", url], { DATABASE_PATH: file });
    expect(refused.code).to.equal(EXIT.failed);
    expect(refused.stderr).to.equal(
      "Error: nothing copied: the target is not empty: apps has 1 row(s); copy into a new database",
    );
    const again = await openDatabase(url);
    try {
      expect((await createRepositories(again.db, () => NOW).apps.list()).map((a) => a.name)).to.deep.equal([
        "already-here",
      ]);
    } finally {
      await again.close();
    }
  });

  it("refuses a database holding a table the copy does not handle, rather than skip it", async () => {
    const other = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-copy-")), "idwallet.sqlite");
    const source = await openDatabase(other);
    try {
      await sql`create table api_keys (id text primary key)`.execute(source.db);
    } finally {
      await source.close();
    }
    const url = await freshPostgresDatabase("copy_unknown_table");
    const refused = await admin(["db", "copy", "--to", url], { DATABASE_PATH: other });
    expect(refused.code).to.equal(EXIT.failed);
    expect(refused.stderr).to.equal(
      "Error: nothing copied: the source has table(s) the copy does not handle: api_keys",
    );
  });

  it("refuses a --to that is not a postgres:// URL, without repeating it", async () => {
    const refused = await admin(["db", "copy", "--to", "mysql://root:hunter2@db/idwallet"], { DATABASE_PATH: file });
    expect(refused.code).to.equal(EXIT.usage);
    expect(refused.stderr).to.match(/^Error: --to must be a postgres:\/\/ URL with a host\n/);
    expect(refused.stderr).not.to.include("hunter2");
  });

  it("names an unreachable target without its password", async () => {
    const url = "postgres://idwallet:hunter2@127.0.0.1:1/idwallet";
    const failed = await admin(["db", "copy", "--to", url], { DATABASE_PATH: file }).catch((error: Error) => error);
    expect(failed).to.be.instanceOf(Error);
    expect((failed as Error).message).to.match(
      /^PostgreSQL database postgres:\/\/idwallet:\*\*\*@127\.0\.0\.1:1\/idwallet: /,
    );
    expect((failed as Error).message).not.to.include("hunter2");
  });

  it("copies only from SQLite: a PostgreSQL source is refused", async () => {
    const url = await freshPostgresDatabase("copy_from_pg");
    const refused = await admin(["--db", url, "db", "copy", "--to", url]);
    expect(refused.code).to.equal(EXIT.failed);
    expect(refused.stderr).to.match(/^Error: db copy copies a SQLite database/);
  });
});
