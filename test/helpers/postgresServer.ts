import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "pg";

const run = promisify(execFile);

/** Where Debian's `postgresql` package puts the server binaries, one folder per major version. */
const DEBIAN_POSTGRES = "/usr/lib/postgresql";

/** A throwaway PostgreSQL server in a temporary folder: trust auth, listening on 127.0.0.1 only. */
export interface PostgresServer {
  readonly port: number;
  /** The server's postmaster process (its backends are its children). */
  readonly pid: number;
  /** Creates an empty database and returns its `postgres://` URL: one per test suite, so suites share nothing. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and deletes its folder. */
  stop(): void;
}

/** The newest installed server's bin folder, or an error saying what to install. */
function postgresBin(): string {
  const versions = existsSync(DEBIAN_POSTGRES)
    ? readdirSync(DEBIAN_POSTGRES)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions.map((version) => path.join(DEBIAN_POSTGRES, version, "bin")).find(existsSync);
  if (!bin) throw new Error("PostgreSQL server not found: install the Debian package `postgresql`");
  return bin;
}

/** A port nothing listens on now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** initdb refuses to run as root: as root, the server's tools run as the `postgres` user and own the folder. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

/** Database names the helper creates: plain identifiers, so no quoting question arises. */
const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Starts a PostgreSQL server of its own: `initdb` and `pg_ctl` in a new temporary folder on a free port. Durability
 * is off (no fsync): the data is thrown away with the folder. `settings`: more server settings (`-c name=value`),
 * e.g. a benchmark's `shared_preload_libraries`.
 */
export async function startPostgresServer(settings: Readonly<Record<string, string>> = {}): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-pg-"));
  const data = path.join(dir, "data");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const pgCtl = path.join(bin, "pg_ctl");
  let started = false;
  const stop = () => {
    if (started) {
      started = false;
      const [command, args] = asServerUser(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
      execFileSync(command, args, { stdio: "ignore" });
    }
    remove();
  };
  try {
    const initdb = asServerUser(path.join(bin, "initdb"), [
      ...["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8"],
      "--locale=C",
    ]);
    await run(...initdb);
    // Another process (a test run beside this one) may take the free port before the server binds it: try another.
    let port = 0;
    for (let attempt = 1; !started; attempt += 1) {
      port = await freePort();
      const extra = Object.entries(settings).map(([name, value]) => ` -c ${name}=${value}`);
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off${extra.join("")}`;
      const log = path.join(dir, "server.log");
      const start = asServerUser(pgCtl, ["-D", data, "-o", options, "-l", log, "-w", "start"]);
      try {
        await run(...start);
        started = true;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    const createDatabase = async (name: string): Promise<string> => {
      if (!DATABASE_NAME.test(name)) throw new Error(`not a plain database name: ${name}`);
      const admin = new Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
      await admin.connect();
      try {
        await admin.query(`create database ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    };
    // postmaster.pid's first line is the server's process id.
    const pid = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n", 1)[0]);
    return { port, pid, createDatabase, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

let shared: Promise<PostgresServer> | undefined;
let databases = 0;

/**
 * A fresh database on one server shared by the whole test run: started on first use, stopped and deleted when the
 * process exits (synchronously, so it also happens after mocha's last hook).
 */
export async function freshPostgresDatabase(suite: string): Promise<string> {
  if (!shared) {
    shared = startPostgresServer();
    void shared.then(
      (server) => process.once("exit", () => server.stop()),
      () => undefined,
    );
  }
  const server = await shared;
  databases += 1;
  return server.createDatabase(`t${databases}_${suite.toLowerCase().replace(/[^a-z0-9_]/g, "_")}`.slice(0, 63));
}
