import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import readline from "node:readline";

/** The service's own entry file (gateway/main.ts) running in a child process. */
export interface ServiceProcess {
  readonly url: string;
  /** The process started (with WORKERS > 1, the cluster's primary). */
  readonly pid: number;
  /** SIGKILL: the process dies at once, wherever it is, as in a crash or an OOM kill. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
}

const ROOT = path.join(__dirname, "..", "..");
const START_TIMEOUT_MS = 60_000;

/** A TCP port free right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts `gateway/main.ts` with exactly `env` (plus PATH, HOST and a free PORT) and waits until /health answers.
 * With `onLine`, its standard output (the JSON log) goes there line by line instead of to the test's.
 */
export async function startServiceProcess(
  env: Readonly<Record<string, string>>,
  options: { onLine?: (line: string) => void } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    // Sucrase strips the types without loading the TypeScript compiler: a service starts in about a third of the time.
    ["-r", "sucrase/register/ts", path.join(ROOT, "gateway", "main.ts")],
    {
      cwd: ROOT,
      // ENV_FILE "": exactly `env`, whatever .env a developer keeps at the root.
      env: {
        PATH: process.env.PATH ?? "",
        ENV_FILE: "",
        HOST: "127.0.0.1",
        PORT: String(port),
        TEST_DEPLOYMENT: "true",
        ...env,
      },
      stdio: options.onLine ? ["ignore", "pipe", "inherit"] : "inherit",
    },
  );
  if (options.onLine) readline.createInterface({ input: child.stdout! }).on("line", options.onLine);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before listening`);
    const up = await fetch(`${url}/health`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("service not listening in time");
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    process.removeListener("exit", killOnExit);
  };
  return { url, pid: child.pid!, kill: () => end("SIGKILL"), stop: () => end("SIGTERM") };
}
