/** Entry point of the service: the only place that reads the environment and listens. */
import cluster from "node:cluster";
import { ConfigError, loadConfig } from "./config/load";
import { readEnvFile } from "./config/envFile";
import { startService } from "./cluster";

async function main(): Promise<void> {
  // ENV_FILE, or the working directory's .env, as Hardhat reads it for npm start and deploy; the environment wins.
  readEnvFile(process.env, cluster.isPrimary);
  const config = loadConfig(process.env);
  const server = await startService(config);
  // A supervisor that started the service with an IPC channel learns where it listens (PORT=0: a port the system chose).
  if (cluster.isPrimary) process.send?.({ type: "listening", url: server.url, port: server.port });
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
