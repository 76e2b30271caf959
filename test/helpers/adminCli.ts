import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.join(__dirname, "..", "..");

/** A row as `audit export` prints it. */
export interface ExportedRow {
  seq: number;
  at: string;
  purpose: string;
  signer: string;
  digest: string;
  signature: string;
  appId?: string;
  userId?: string;
  chain?: string;
  /** A custody root's covered hashes. */
  covers?: string[];
  prevHash: string;
  hash: string;
}

/** What the admin CLI printed and how it exited. */
export interface AdminRun {
  code: number | null;
  out: string;
  err: string;
}

/** `npm run admin -- --db <the service's database> <args>`, as the operator runs it. */
export function admin(database: string, ...args: string[]): Promise<AdminRun> {
  return adminWith({}, database, ...args);
}

/**
 * The same, with `env` added to the CLI's environment (SECRETS_KEY, WEBHOOK_* settings). DATA_DIR is the database
 * file's directory (an empty one for a URL) unless `env` sets it, so no local stack's settings file in the checkout's
 * data/ reaches a test.
 */
export function adminWith(env: Record<string, string>, database: string, ...args: string[]): Promise<AdminRun> {
  const dataDir = /^[a-z][a-z0-9+.-]*:\/\//i.test(database)
    ? mkdtempSync(path.join(tmpdir(), "idwallet-admin-"))
    : path.dirname(database);
  return runAdmin({ ...process.env, DATA_DIR: dataDir, ...env }, ["--db", database, ...args]);
}

/** Settings a test runner's own environment might carry: never passed to adminBeside's CLI. */
const RUNNER_SETTINGS = ["CONFIG_FILE", "DATA_DIR", "DATABASE_URL", "DATABASE_PATH", "SECRETS_KEY", "AUDIT_LOG_KEY"];

/**
 * `npm run admin -- <args>` without `--db`, and of the service's settings only `env`: what the CLI finds itself
 * (ENV_FILE "": no `.env` a developer keeps at the root, unless `env` names one).
 */
export function adminBeside(env: Record<string, string>, ...args: string[]): Promise<AdminRun> {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !RUNNER_SETTINGS.includes(name) && !name.startsWith("WEBHOOK_"),
  );
  return runAdmin({ ...Object.fromEntries(inherited), ENV_FILE: "", ...env }, args);
}

function runAdmin(env: NodeJS.ProcessEnv, args: readonly string[]): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "admin", "--", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject).on("close", (code) => resolve({ code, out, err }));
  });
}
