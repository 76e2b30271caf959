import { expect } from "chai";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { redactDatabaseLocation } from "../../../gateway/config/databaseSetting";
import { ConfigError, loadConfig } from "../../../gateway/config/load";
import { loadAdminSettings } from "../../../scripts/admin/adminSettings";
import { parseAdminArgs } from "../../../scripts/admin/args";

const REQUIRED = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
  CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
  TEST_DEPLOYMENT: "true",
};
const URL_WITH_PASSWORD = "postgres://idwallet:s3cret-pw@db.internal:5432/idwallet";

const configError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("DATABASE_URL and DATABASE_PATH", () => {
  it("DATABASE_URL selects PostgreSQL and leaves no SQLite path; unset, SQLite under DATA_DIR", () => {
    const pg = loadConfig({ ...REQUIRED, DATABASE_URL: URL_WITH_PASSWORD });
    expect(pg.databaseUrl).to.equal(URL_WITH_PASSWORD);
    expect(pg.databasePath).to.equal(undefined);
    const sqlite = loadConfig({ ...REQUIRED, DATA_DIR: "/var/lib/idwallet" });
    expect(sqlite.databaseUrl).to.equal(undefined);
    expect(sqlite.databasePath).to.equal(path.join("/var/lib/idwallet", "idwallet.sqlite"));
  });

  it("refuses both set: which database is meant is ambiguous", () => {
    expect(configError({ ...REQUIRED, DATABASE_URL: URL_WITH_PASSWORD, DATABASE_PATH: "x.sqlite" })).to.equal(
      "invalid configuration:\n  DATABASE_URL: DATABASE_URL (PostgreSQL) and DATABASE_PATH (SQLite) are both set: " +
        "set only the database the service uses",
    );
  });

  it("refuses a PostgreSQL URL in DATABASE_PATH, without repeating it", () => {
    const message = configError({ ...REQUIRED, DATABASE_PATH: URL_WITH_PASSWORD });
    expect(message).to.equal(
      "invalid configuration:\n  DATABASE_PATH: a SQLite file; a PostgreSQL URL goes in DATABASE_URL",
    );
  });

  for (const bad of ["mysql://root:s3cret-pw@db/idwallet", "postgres://:s3cret-pw@/idwallet", "not a url s3cret-pw"]) {
    it(`refuses DATABASE_URL=${bad.replace("s3cret-pw", "…")} without repeating it`, () => {
      const message = configError({ ...REQUIRED, DATABASE_URL: bad });
      expect(message).to.match(/^invalid configuration:\n {2}DATABASE_URL: a postgres:\/\/ URL with a host/);
      expect(message).not.to.include("s3cret-pw");
    });
  }

  it("redacts a URL's password wherever it is shown; a file path stays as it is", () => {
    expect(redactDatabaseLocation(URL_WITH_PASSWORD)).to.equal("postgres://idwallet:***@db.internal:5432/idwallet");
    expect(redactDatabaseLocation("postgres://db.internal/idwallet")).to.equal("postgres://db.internal/idwallet");
    expect(redactDatabaseLocation("data/idwallet.sqlite")).to.equal("data/idwallet.sqlite");
  });

  it("the admin CLI: --db wins; else DATABASE_URL or DATABASE_PATH, refusing both", () => {
    const dbOf = (argv: string[], env: NodeJS.ProcessEnv) => {
      try {
        const parsed = parseAdminArgs(argv, loadAdminSettings(env));
        return parsed.ok ? parsed.dbPath : parsed.error;
      } catch (error) {
        // The settings the CLI reads as the service does: a bad one is refused with the service's words.
        return (error as Error).message;
      }
    };
    expect(dbOf(["apps", "list"], { DATABASE_URL: URL_WITH_PASSWORD })).to.equal(URL_WITH_PASSWORD);
    expect(dbOf(["--db", "x.sqlite", "apps", "list"], { DATABASE_URL: URL_WITH_PASSWORD })).to.equal("x.sqlite");
    expect(dbOf(["--db", URL_WITH_PASSWORD, "apps", "list"], {})).to.equal(URL_WITH_PASSWORD);
    expect(dbOf(["apps", "list"], { DATABASE_URL: URL_WITH_PASSWORD, DATABASE_PATH: "x.sqlite" })).to.include(
      "DATABASE_URL: DATABASE_PATH (SQLite) is set too: unset one, or use --db",
    );
    const badUrl = dbOf(["apps", "list"], { DATABASE_URL: "mysql://root:s3cret-pw@db/x" });
    expect(badUrl).to.include("DATABASE_URL: a postgres:// URL with a host");
    expect(badUrl).not.to.include("s3cret-pw");
  });

  it("npm run serve on an unreachable PostgreSQL database exits naming it without its password", function () {
    this.timeout(60_000);
    const result = spawnSync(
      process.execPath,
      ["-r", "ts-node/register/transpile-only", path.join(__dirname, "..", "..", "..", "gateway", "main.ts")],
      {
        env: {
          PATH: process.env.PATH,
          ENV_FILE: "",
          ...REQUIRED,
          DATABASE_URL: "postgres://idwallet:s3cret-pw@127.0.0.1:1/idwallet",
        },
        encoding: "utf8",
        timeout: 50_000,
      },
    );
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include("PostgreSQL database postgres://idwallet:***@127.0.0.1:1/idwallet: ");
    expect(result.stdout + result.stderr).not.to.include("s3cret-pw");
  });
});
