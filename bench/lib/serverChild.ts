import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { stopChild } from "../../scripts/processes/stopChild";

/** The service running in a child process, so the load generator does not share its event loop. */
export interface ServerChild {
  readonly url: string;
  readonly pid: number;
  /** Stops the child (SIGTERM, then SIGKILL after a grace period) and removes its temporary data. */
  stop(): Promise<void>;
}

const ENTRY = path.join(__dirname, "serverProcess.ts");
const START_TIMEOUT_MS = 60_000;

/**
 * Starts `bench/lib/serverProcess.ts` with `env` (added to a fresh DATABASE_PATH unless it has a DATABASE_URL, HOST=127.0.0.1, PORT=0,
 * LOG_LEVEL=silent, TEST_DEPLOYMENT=true; nothing else of this process's environment but PATH) and waits for its URL.
 * `nodeArgs` go to node before the entry, e.g. `--cpu-prof`.
 */
export async function startServerChild(
  env: Readonly<Record<string, string>>,
  nodeArgs: readonly string[] = [],
): Promise<ServerChild> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-bench-"));
  const child = spawn(process.execPath, [...nodeArgs, "-r", "ts-node/register/transpile-only", ENTRY], {
    cwd: path.join(__dirname, "..", ".."),
    env: {
      PATH: process.env.PATH ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "silent",
      // A fresh SQLite file, unless the caller names a PostgreSQL database (the two settings exclude each other).
      ...(env.DATABASE_URL ? {} : { DATABASE_PATH: path.join(dataDir, "idwallet.sqlite") }),
      // A benchmark is a test deployment: its login codes may go to the outbox file.
      TEST_DEPLOYMENT: "true",
      ...env,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  // Whatever happens to this process, the child goes with it.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  try {
    const url = await readUrl(child);
    return {
      url,
      pid: child.pid!,
      stop: async () => {
        await stopChild(child);
        process.removeListener("exit", killOnExit);
        removeData();
      },
    };
  } catch (error) {
    await stopChild(child);
    process.removeListener("exit", killOnExit);
    removeData();
    throw error;
  }
}

/** The `{"url":...}` line the child prints once listening; rejects if it exits or stays silent. */
function readUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(
      () => fail(new Error(`server child not listening within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`server child exited before listening (code ${code}, signal ${signal})`));
    function fail(error: Error) {
      clearTimeout(timer);
      child.removeListener("exit", onExit);
      lines.close();
      reject(error);
    }
    child.once("exit", onExit);
    child.once("error", fail);
    lines.once("line", (line) => {
      clearTimeout(timer);
      child.removeListener("exit", onExit);
      lines.close();
      try {
        const { url } = JSON.parse(line) as { url?: unknown };
        if (typeof url !== "string") throw new Error("no url");
        resolve(url);
      } catch {
        reject(new Error(`server child printed ${JSON.stringify(line)}, not {"url":...}`));
      }
    });
  });
}
