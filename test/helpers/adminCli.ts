import { spawn } from "node:child_process";
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
  prevHash: string;
  hash: string;
}

/** `npm run admin -- --db <the service's database> <args>`, as the operator runs it. */
export function admin(database: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return adminWith({}, database, ...args);
}

/** The same, with `env` added to the CLI's environment (SECRETS_KEY, WEBHOOK_* settings). */
export function adminWith(
  env: Record<string, string>,
  database: string,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "admin", "--", "--db", database, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject).on("close", (code) => resolve({ code, out, err }));
  });
}
