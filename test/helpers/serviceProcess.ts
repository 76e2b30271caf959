import { type ChildProcess, spawn } from "node:child_process";
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

/**
 * Starts `gateway/main.ts` with exactly `env` (plus PATH, HOST and PORT 0) and waits until it says, over the IPC
 * channel, where it listens. The system chose the port as the service bound it: no other test run running at the
 * same time can take it in between, and no other run's service can answer for this one.
 * With `onLine`, its standard output (the JSON log) goes there line by line instead of to the test's.
 */
export async function startServiceProcess(
  env: Readonly<Record<string, string>>,
  options: { onLine?: (line: string) => void } = {},
): Promise<ServiceProcess> {
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
        PORT: "0",
        TEST_DEPLOYMENT: "true",
        ...env,
      },
      stdio: options.onLine ? ["ignore", "pipe", "inherit", "ipc"] : ["inherit", "inherit", "inherit", "ipc"],
    },
  );
  if (options.onLine) readline.createInterface({ input: child.stdout! }).on("line", options.onLine);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("service not listening in time"));
    }, START_TIMEOUT_MS);
    child.on("message", (message: { type?: string; url?: string }) => {
      if (message?.type !== "listening" || typeof message.url !== "string") return;
      clearTimeout(timer);
      resolve(message.url);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${signal ?? code} before listening`));
    });
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    process.removeListener("exit", killOnExit);
  };
  return { url, pid: child.pid!, kill: () => end("SIGKILL"), stop: () => end("SIGTERM") };
}
