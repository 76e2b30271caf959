import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConfigError } from "../../../gateway/config/load";
import { adminEnvironment, loadAdminSettings } from "../../../scripts/admin/adminSettings";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT } from "../../../scripts/admin/commands";
import { writeLocalStackConfig } from "../../../scripts/localStack/localStackConfig";
import { TEST_KEYS } from "../storage/builders";

const ROOT = path.join(__dirname, "..", "..", "..");

/** A SECRETS_KEY the service refuses: not 32 bytes. */
const BAD_KEY = "not-a-32-byte-key";

describe("admin CLI: `.env` read as `npm run serve` reads it (the environment winning)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "admin-dotenv-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A `.env` in the test's directory holding `lines`. */
  const dotenv = (...lines: string[]): string => {
    const file = path.join(dir, ".env");
    writeFileSync(file, `${lines.join("\n")}\n`);
    return file;
  };

  /** The CLI's exit code and stderr, run in-process under adminEnvironment(env). */
  const run = async (env: Record<string, string>, ...argv: string[]) => {
    const err: string[] = [];
    const output = { out: () => undefined, err: (text: string) => err.push(text) };
    const code = await runAdminCli(argv, { env: adminEnvironment(env).env, output, clock: () => new Date() });
    return { code, err: err.join("\n") };
  };

  it("a bad SECRETS_KEY in .env: the CLI refuses, naming SECRETS_KEY, as the service's start-up does", async () => {
    const file = dotenv(`DATABASE_PATH=${path.join(dir, "idwallet.sqlite")}`, `SECRETS_KEY=${BAD_KEY}`);
    const refused = await run({ ENV_FILE: file }, "apps", "list");
    expect(refused.code).to.equal(EXIT.usage);
    expect(refused.err).to.match(/^Error: SECRETS_KEY: /);
  });

  it("a variable set in the environment wins over .env, even set empty", () => {
    const file = dotenv(`SECRETS_KEY=${BAD_KEY}`, "DATABASE_PATH=from-dotenv.sqlite", "WEBHOOK_ALLOW_LOOPBACK=true");
    const { env, envFile } = adminEnvironment({ ENV_FILE: file, SECRETS_KEY: TEST_KEYS.current, DATABASE_PATH: "" });
    expect(envFile).to.have.members(["WEBHOOK_ALLOW_LOOPBACK"]);
    const settings = loadAdminSettings(env);
    expect(settings.secrets.key).to.equal(TEST_KEYS.current);
    expect(settings.database).to.equal(path.join("data", "idwallet.sqlite"));
    expect(settings.webhooks.allowLoopback).to.equal(true);
    // ENV_FILE "" reads none; ENV_FILE naming a missing file is refused by its name, as the service refuses it.
    expect(adminEnvironment({ ENV_FILE: "" }).envFile).to.deep.equal([]);
    expect(() => adminEnvironment({ ENV_FILE: path.join(dir, "missing.env") }))
      .to.throw(ConfigError)
      .with.property("message")
      .that.matches(/^ENV_FILE .*missing\.env: ENOENT/);
  });

  it("a deployment's .env beside a stray local-stack file: the file is not read underneath; a stack's own .env: it is", () => {
    const stackDir = path.join(dir, "data");
    writeLocalStackConfig(stackDir, {
      dataDir: stackDir,
      databaseUrl: "postgres://idwallet@127.0.0.1/local",
      secrets: { key: TEST_KEYS.current },
      webhooks: { allowLoopback: true },
    });
    const deployment = dotenv(
      `DATA_DIR=${stackDir}`,
      "DATABASE_URL=postgres://idwallet@db.example.com/idwallet",
      `SECRETS_KEY=${TEST_KEYS.other}`,
    );
    expect(adminEnvironment({ ENV_FILE: deployment }).found).to.equal(undefined);
    expect(loadAdminSettings(adminEnvironment({ ENV_FILE: deployment }).env).webhooks.allowLoopback).to.equal(false);
    // The .env the local stack was started under (npm start reads it too): its settings are the file's.
    const stacks = dotenv(`DATA_DIR=${stackDir}`, "DATABASE_URL=postgres://idwallet@127.0.0.1/local");
    const found = adminEnvironment({ ENV_FILE: stacks });
    expect(found.found).to.equal(path.join(stackDir, "local-stack.config.json"));
    expect(loadAdminSettings(found.env).secrets.key).to.equal(TEST_KEYS.current);
    // Another secrets key than the stack's, set by hand: another deployment's, never the stack's file underneath.
    expect(adminEnvironment({ ENV_FILE: stacks, SECRETS_KEY: TEST_KEYS.other }).found).to.equal(undefined);
  });

  it("npm run admin reads the working directory's .env: refused by SECRETS_KEY, then run under the environment's key", function () {
    this.timeout(60_000);
    dotenv(`DATABASE_PATH=${path.join(dir, "idwallet.sqlite")}`, `SECRETS_KEY=${BAD_KEY}`);
    const spawn = (env: Record<string, string>) =>
      spawnSync(
        process.execPath,
        ["-r", require.resolve("sucrase/register/ts"), path.join(ROOT, "scripts", "admin.ts"), "apps", "list"],
        { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env } },
      );
    const refused = spawn({});
    expect(refused.status, refused.stderr).to.equal(EXIT.usage);
    expect(refused.stderr).to.match(/^Using the settings in \.env .*\nError: SECRETS_KEY: /);
    const listed = spawn({ SECRETS_KEY: TEST_KEYS.current });
    expect([listed.status, listed.stdout], listed.stderr).to.deep.equal([EXIT.ok, "No apps.\n"]);
  });
});
