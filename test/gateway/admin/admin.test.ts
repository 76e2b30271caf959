import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadAdminSettings } from "../../../scripts/admin/adminSettings";
import { DEFAULT_DATABASE_PATH, parseAdminArgs, USAGE, type AdminCommand } from "../../../scripts/admin/args";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT, formatTable, runAdminCommand, type AdminOutput } from "../../../scripts/admin/commands";
import { openDatabase } from "../../../gateway/storage/database";
import { openTestStore, type TestStore } from "../storage/builders";

/** An AdminOutput that keeps what was written. */
function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

const secretIn = (text: string): string => /client secret: (\S+)/.exec(text)?.[1] ?? "";

describe("admin CLI: arguments", () => {
  const ok = (argv: string[]): AdminCommand => {
    const parsed = parseAdminArgs(argv);
    if (!parsed.ok) throw new Error(`expected ${argv.join(" ")} to parse: ${parsed.error}`);
    return parsed.command;
  };
  const cases: ReadonlyArray<readonly [string[], AdminCommand]> = [
    [["apps", "create", "My App"], { kind: "apps create", name: "My App", testMode: false }],
    [["apps", "create", "My App", "--test-mode"], { kind: "apps create", name: "My App", testMode: true }],
    [["apps", "list"], { kind: "apps list" }],
    [["apps", "disable", "app_1"], { kind: "apps status", id: "app_1", status: "disabled" }],
    [["apps", "enable", "app_1"], { kind: "apps status", id: "app_1", status: "active" }],
    [["apps", "rotate-secret", "app_1"], { kind: "apps rotate-secret", id: "app_1" }],
    [["apps", "test-mode", "app_1", "on"], { kind: "apps test-mode", id: "app_1", on: true }],
    [["apps", "test-mode", "app_1", "off"], { kind: "apps test-mode", id: "app_1", on: false }],
    [["apps", "grant-delegatecall", "app_1"], { kind: "apps grant-delegatecall", id: "app_1" }],
    [["apps", "revoke-delegatecall", "app_1"], { kind: "apps revoke-delegatecall", id: "app_1" }],
    [["apps", "grant-safe-config", "app_1"], { kind: "apps grant-safe-config", id: "app_1" }],
    [["apps", "revoke-safe-config", "app_1"], { kind: "apps revoke-safe-config", id: "app_1" }],
    [["maintenance", "on"], { kind: "maintenance on" }],
    [["maintenance", "on", "--message", "Back soon"], { kind: "maintenance on", message: "Back soon" }],
    [["maintenance", "off"], { kind: "maintenance off" }],
    [["maintenance", "status"], { kind: "maintenance status" }],
    [["--help"], { kind: "help" }],
  ];
  for (const [argv, command] of cases) {
    it(`parses "${argv.join(" ")}"`, () => expect(ok(argv)).to.deep.equal(command));
  }

  const bad: ReadonlyArray<readonly [string[], RegExp]> = [
    [[], /missing command/],
    [["apps"], /unknown command "apps"/],
    [["apps", "frob"], /unknown command "apps frob"/],
    [["apps", "create"], /takes 1 argument/],
    [["apps", "create", "a", "b"], /takes 1 argument/],
    [["apps", "create", " "], /must not be empty/],
    [["apps", "list", "extra"], /takes 0 argument/],
    [["apps", "test-mode", "app_1", "maybe"], /"on" or "off"/],
    [["apps", "grant-delegatecall"], /takes 1 argument/],
    [["apps", "revoke-delegatecall", "app_1", "app_2"], /takes 1 argument/],
    [["apps", "grant-safe-config"], /takes 1 argument/],
    [["apps", "list", "--test-mode"], /--test-mode applies only to apps create/],
    [["maintenance", "off", "--message", "x"], /--message applies only to maintenance on/],
    [["maintenance", "on", "--message", ""], /must not be empty/],
    [["apps", "list", "--bogus"], /Unknown option '--bogus'/],
  ];
  for (const [argv, error] of bad) {
    it(`refuses "${argv.join(" ")}"`, () => {
      const parsed = parseAdminArgs(argv);
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.error).to.match(error);
    });
  }

  it("takes the database from --db, else DATABASE_PATH, else the service's file under DATA_DIR", () => {
    const dbOf = (argv: string[], env: NodeJS.ProcessEnv) => {
      const parsed = parseAdminArgs(argv, loadAdminSettings(env));
      return parsed.ok ? parsed.dbPath : parsed.error;
    };
    expect(dbOf(["--db", "x.sqlite", "apps", "list"], { DATABASE_PATH: "env.sqlite" })).to.equal("x.sqlite");
    expect(dbOf(["apps", "list"], { DATABASE_PATH: "env.sqlite" })).to.equal("env.sqlite");
    expect(dbOf(["apps", "list"], { DATABASE_PATH: "" })).to.equal(DEFAULT_DATABASE_PATH);
    expect(dbOf(["apps", "list"], {})).to.equal("data/idwallet.sqlite");
    expect(dbOf(["apps", "list"], { DATA_DIR: "elsewhere" })).to.equal(path.join("elsewhere", "idwallet.sqlite"));
  });
});

describe("admin CLI: commands", () => {
  let store: TestStore;
  let output: ReturnType<typeof captureOutput>;
  beforeEach(async () => {
    store = await openTestStore();
    output = captureOutput();
  });
  afterEach(() => store.database.close());

  const run = (command: AdminCommand) => runAdminCommand(command, store.repos, output);

  it("apps create prints the id, client id and a working secret once, with a warning", async () => {
    expect(await run({ kind: "apps create", name: "Demo", testMode: true })).to.equal(EXIT.ok);
    const [app] = await store.repos.apps.list();
    const text = output.stdout.join("\n");
    expect(text).to.include(app?.id).and.include(app?.clientId).and.include("test mode on");
    const secret = secretIn(text);
    expect((await store.repos.apps.verifySecret(app?.clientId ?? "", secret))?.id).to.equal(app?.id);
    expect(text.split(secret)).to.have.length(2); // printed exactly once
    expect(output.stderr.join("\n")).to.match(/shown only this once and is not stored/);
  });

  it("apps list shows every app as a table and never a secret or hash", async () => {
    expect(await run({ kind: "apps list" })).to.equal(EXIT.ok);
    expect(output.stdout).to.deep.equal(["No apps."]);
    const a = await store.repos.apps.create({ name: "Alpha" });
    store.clock.advance(1000); // the list is ordered by creation time
    const b = await store.repos.apps.create({ name: "Beta", testMode: true });
    output.stdout.length = 0;
    expect(await run({ kind: "apps list" })).to.equal(EXIT.ok);
    const text = output.stdout.join("\n");
    const lines = text.split("\n");
    expect(lines[0]).to.match(
      /^ID\s+NAME\s+CLIENT ID\s+STATUS\s+TEST MODE\s+DELEGATECALL\s+SAFE CONFIG\s+CREATED\s+SECRET ROTATED$/,
    );
    expect(lines[1]).to.match(new RegExp(`^${a.app.id}\\s+Alpha\\s+${a.app.clientId}\\s+active\\s+off\\s+-\\s`));
    expect(lines[2]).to.match(new RegExp(`^${b.app.id}\\s+Beta\\s+${b.app.clientId}\\s+active\\s+on\\s+-\\s`));
    for (const secret of [a.clientSecret, b.clientSecret]) expect(text).to.not.include(secret);
    expect(text).to.not.include("hmac-sha256$").and.not.include("scrypt$");
  });

  it("apps disable / enable switch whether the credentials verify", async () => {
    const { app, clientSecret } = await store.repos.apps.create({ name: "Demo" });
    expect(await run({ kind: "apps status", id: app.id, status: "disabled" })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(new RegExp(`^Disabled app ${app.id} `));
    expect(await store.repos.apps.verifySecret(app.clientId, clientSecret)).to.equal(undefined);
    expect(await run({ kind: "apps status", id: app.id, status: "active" })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(new RegExp(`^Enabled app ${app.id} `));
    expect(await store.repos.apps.verifySecret(app.clientId, clientSecret)).to.not.equal(undefined);
  });

  it("apps rotate-secret prints a new working secret and the old one stops working", async () => {
    const { app, clientSecret } = await store.repos.apps.create({ name: "Demo" });
    expect(await run({ kind: "apps rotate-secret", id: app.id })).to.equal(EXIT.ok);
    const secret = secretIn(output.stdout.join("\n"));
    expect(secret).to.not.equal(clientSecret);
    expect(await store.repos.apps.verifySecret(app.clientId, secret)).to.not.equal(undefined);
    expect(await store.repos.apps.verifySecret(app.clientId, clientSecret)).to.equal(undefined);
    expect(output.stderr.join("\n")).to.match(/not stored/);
  });

  it("apps test-mode turns test mode on and off", async () => {
    const { app } = await store.repos.apps.create({ name: "Demo" });
    expect(await run({ kind: "apps test-mode", id: app.id, on: true })).to.equal(EXIT.ok);
    expect((await store.repos.apps.findById(app.id))?.testMode).to.equal(true);
    expect(await run({ kind: "apps test-mode", id: app.id, on: false })).to.equal(EXIT.ok);
    expect((await store.repos.apps.findById(app.id))?.testMode).to.equal(false);
    expect(output.stdout).to.have.length(2);
    expect(output.stdout[1]).to.match(/^Test mode off for app /);
  });

  it("apps grant-delegatecall / revoke-delegatecall switch the grant, and apps list shows it", async () => {
    const { app } = await store.repos.apps.create({ name: "Scripts" });
    const other = await store.repos.apps.create({ name: "Other" });
    expect(await run({ kind: "apps grant-delegatecall", id: app.id })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(
      new RegExp(`^Granted delegatecall for app ${app.id} .*delegatecall granted\\)$`),
    );
    expect((await store.repos.apps.findById(app.id))?.delegatecallGranted).to.equal(true);
    expect((await store.repos.apps.findById(other.app.id))?.delegatecallGranted).to.equal(false);
    expect(await run({ kind: "apps list" })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(new RegExp(`\\n${app.id}\\s+Scripts\\s+\\S+\\s+active\\s+off\\s+granted\\s`));
    expect(await run({ kind: "apps revoke-delegatecall", id: app.id })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(
      new RegExp(`^Revoked delegatecall for app ${app.id} .*delegatecall not granted\\)$`),
    );
    expect((await store.repos.apps.findById(app.id))?.delegatecallGranted).to.equal(false);
  });

  it("apps grant-safe-config / revoke-safe-config switch the Safe grant alone, and apps list shows it", async () => {
    const { app } = await store.repos.apps.create({ name: "Custodian" });
    const other = await store.repos.apps.create({ name: "Other" });
    expect(await run({ kind: "apps grant-safe-config", id: app.id })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(new RegExp(`^Granted Safe configuration calls for app ${app.id} `));
    expect(await store.repos.apps.findById(app.id)).to.deep.include({
      safeConfigGranted: true,
      delegatecallGranted: false,
    });
    expect((await store.repos.apps.findById(other.app.id))?.safeConfigGranted).to.equal(false);
    expect(await run({ kind: "apps list" })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(
      new RegExp(`\\n${app.id}\\s+Custodian\\s+\\S+\\s+active\\s+off\\s+-\\s+granted\\s`),
    );
    expect(await run({ kind: "apps revoke-safe-config", id: app.id })).to.equal(EXIT.ok);
    expect(output.stdout.at(-1)).to.match(new RegExp(`^Revoked Safe configuration calls for app ${app.id} `));
    expect((await store.repos.apps.findById(app.id))?.safeConfigGranted).to.equal(false);
  });

  it("apps policy sets an app's budget, rate and allowlists from the command line, shows them, and drops them again", async () => {
    const { app } = await store.repos.apps.create({ name: "Spender" });
    const line = (...argv: string[]) => {
      const parsed = parseAdminArgs(["apps", "policy", app.id, ...argv]);
      if (!parsed.ok) throw new Error(parsed.error);
      return run(parsed.command);
    };
    const target = "0x000000000000000000000000000000000000dead";
    expect(
      await line(
        "--budget-gas",
        "50000000",
        "--period",
        "1h",
        "--rate",
        "5/s",
        "--chains",
        "localhost,matic",
        "--targets",
        target,
        "--max-value-wei",
        "1000",
        "--user-daily-cap-gas",
        "9000000",
      ),
    ).to.equal(EXIT.ok);
    expect((await store.repos.apps.findById(app.id))!.policy).to.deep.equal({
      budgetGas: 50_000_000n,
      periodSeconds: 3600,
      rate: { requests: 5, perSeconds: 1 },
      chains: ["localhost", "matic"],
      targets: ["0x000000000000000000000000000000000000dEaD"],
      maxValueWei: 1000n,
      userDailyCapGas: 9_000_000n,
    });
    expect(output.stdout.at(-1)).to.match(/budget \(gas\/chain\)\s+50000000\n[\s\S]*rate\s+5\/s/);
    expect(await line("--rate", "default", "--chains", "default")).to.equal(EXIT.ok);
    const kept = (await store.repos.apps.findById(app.id))!.policy;
    expect([kept.rate, kept.chains, kept.budgetGas]).to.deep.equal([undefined, undefined, 50_000_000n]);
    expect(await line("--rate", "fast")).to.equal(EXIT.usage);
    expect(await line("--chains", "atlantis")).to.equal(EXIT.usage);
    expect(await line("--reset")).to.equal(EXIT.ok);
    expect((await store.repos.apps.findById(app.id))!.policy).to.deep.equal({});
    expect(await run({ kind: "apps policy", id: "app_missing", changes: undefined })).to.equal(EXIT.notFound);
    expect(parseAdminArgs(["apps", "list", "--rate", "5/s"])).to.deep.include({ ok: false });
  });

  it("an unknown app id exits 1 with a message and changes nothing", async () => {
    for (const command of [
      { kind: "apps status", id: "app_missing", status: "disabled" },
      { kind: "apps rotate-secret", id: "app_missing" },
      { kind: "apps test-mode", id: "app_missing", on: true },
      { kind: "apps grant-delegatecall", id: "app_missing" },
      { kind: "apps revoke-delegatecall", id: "app_missing" },
      { kind: "apps grant-safe-config", id: "app_missing" },
    ] as const) {
      expect(await run(command)).to.equal(EXIT.notFound);
    }
    expect(output.stderr).to.deep.equal(Array(6).fill('Error: app "app_missing" not found'));
    expect(output.stdout).to.deep.equal([]);
  });

  it("maintenance on / status / off", async () => {
    expect(await run({ kind: "maintenance on", message: "Back soon" })).to.equal(EXIT.ok);
    expect(await run({ kind: "maintenance status" })).to.equal(EXIT.ok);
    expect(await run({ kind: "maintenance off" })).to.equal(EXIT.ok);
    expect(await run({ kind: "maintenance status" })).to.equal(EXIT.ok);
    expect(output.stdout).to.deep.equal([
      'Maintenance mode on: "Back soon"',
      "Maintenance mode on since 2025-01-01T00:00:00.000Z\nMessage: Back soon",
      "Maintenance mode off",
      "Maintenance mode off since 2025-01-01T00:00:00.000Z",
    ]);
  });

  it("formats a table with padded columns", () => {
    expect(formatTable(["A", "BB"], [["xyz", "1"]])).to.equal("A    BB\nxyz  1");
  });
});

describe("admin CLI: process", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-admin-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const deps = (output: AdminOutput) => ({ env: {}, output, clock: () => new Date("2025-01-01T00:00:00.000Z") });

  it("exits 2 with the usage on stderr for a bad command, without opening the database", async () => {
    const output = captureOutput();
    const file = path.join(dir, "never.sqlite");
    expect(await runAdminCli(["--db", file, "apps", "frob"], deps(output))).to.equal(EXIT.usage);
    expect(output.stderr.join("\n")).to.include('unknown command "apps frob"').and.include(USAGE);
    expect(output.stdout).to.deep.equal([]);
    expect(existsSync(file)).to.equal(false);
  });

  it("runs commands against the database file and closes it", async () => {
    const file = path.join(dir, "data", "admin.sqlite");
    const output = captureOutput();
    expect(await runAdminCli(["--db", file, "apps", "create", "Demo"], deps(output))).to.equal(EXIT.ok);
    expect(await runAdminCli(["--db", file, "apps", "disable", "app_missing"], deps(output))).to.equal(EXIT.notFound);
    const { db, close } = await openDatabase(file);
    try {
      expect((await db.selectFrom("apps").select("name").execute()).map((row) => row.name)).to.deep.equal(["Demo"]);
    } finally {
      await close();
    }
  });

  it("scripts/admin.ts sets the process exit code", function () {
    this.timeout(60_000);
    const file = path.join(dir, "spawned.sqlite");
    const spawn = (...args: string[]) =>
      spawnSync(process.execPath, ["-r", "ts-node/register/transpile-only", "scripts/admin.ts", ...args], {
        encoding: "utf8",
        env: { ...process.env, DATABASE_PATH: file },
      });
    const usage = spawn("apps", "frob");
    expect([usage.status, usage.stdout]).to.deep.equal([2, ""]);
    expect(usage.stderr).to.include("Usage: admin");
    const missing = spawn("apps", "enable", "app_missing");
    expect([missing.status, missing.stderr]).to.deep.equal([1, 'Error: app "app_missing" not found\n']);
    const list = spawn("apps", "list");
    expect([list.status, list.stdout]).to.deep.equal([0, "No apps.\n"]);
  });
});
