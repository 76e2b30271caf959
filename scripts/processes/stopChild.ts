import type { ChildProcess } from "node:child_process";

/** How long a child process is given to exit after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000;

/** SIGTERM, then SIGKILL if the child has not exited after STOP_GRACE_MS; resolves once it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
