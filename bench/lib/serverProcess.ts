/**
 * Child-process entry of the resolver bench: starts the real service from the environment the parent
 * passes, prints one JSON line `{"url":...}` on stdout once listening, and exits when told to (SIGTERM,
 * SIGINT) or when the parent goes away (stdin closed). Run as `node -r ts-node/register/transpile-only`.
 */
import { ConfigError, loadConfig } from "../../gateway/config/load";
import cluster from "node:cluster";
import { startService } from "../../gateway/cluster";

async function main(): Promise<void> {
  const server = await startService(loadConfig(process.env));
  // A worker of a multi-process service: its primary does the talking.
  if (!cluster.isPrimary) return;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // A normal exit, so `--cpu-prof` gets to write its profile.
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // The parent holds our stdin: end of stdin means it is gone, and we must not outlive it.
  process.stdin.on("end", stop).resume();
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
