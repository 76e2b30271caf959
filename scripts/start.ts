/**
 * `npm start [-- --fresh]`: runs the local stack (scripts/dev.ts) under `hardhat run`, which compiles first and
 * takes no options of its own script; `--fresh` becomes FRESH=1 (a new chain, the data's records of the old one
 * cleared). Everything else is set in the environment or `.env`, as scripts/dev.ts describes. The ports are checked
 * first, with `.env` read.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { readEnvFile } from "../gateway/config/envFile";
import { checkStackPorts, listenSettings, stackPorts } from "./localStack/portCheck";
import { LOCAL_STACK_SETTINGS } from "./localStack/stackSettings";

const USAGE = `usage: npm start [-- --fresh]
  --fresh  start a new chain and clear the data directory's records of the old one (the same as FRESH=1)
Settings (environment, or .env): ${LOCAL_STACK_SETTINGS.join(", ")}, and the service's (README, Quickstart)`;

/** The environment additions the arguments ask for; throws, with the usage, on one it does not know. */
export function startArguments(args: readonly string[]): { help: boolean; env: Record<string, string> } {
  const env: Record<string, string> = {};
  let help = false;
  for (const arg of args) {
    if (arg === "--fresh") env.FRESH = "1";
    else if (arg === "--help" || arg === "-h") help = true;
    else throw new Error(`npm start: unknown argument "${arg}"\n${USAGE}`);
  }
  return { help, env };
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof startArguments>;
  try {
    parsed = startArguments(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  if (parsed.help) {
    console.log(USAGE);
    return;
  }
  // Before Hardhat loads and compiles (seconds): a taken port is said at once. `.env` (or ENV_FILE's file) is read
  // first, as gateway/main.ts reads it, so that a PORT or DEV_RPC_PORT set there is the one checked; the stack gets
  // this environment, in which Hardhat's own reading of the file (hardhat.config.ts) then sets nothing more.
  try {
    readEnvFile(process.env, true);
    const { host, apiPort, rpcPort } = listenSettings(process.env);
    await checkStackPorts(host, stackPorts(apiPort, rpcPort, process.env));
  } catch (error) {
    console.error(`npm start: ${(error as Error).message}`);
    process.exit(1);
  }
  const hardhat = path.join(path.dirname(require.resolve("hardhat/package.json")), "internal", "cli", "bootstrap.js");
  const child = spawn(process.execPath, [hardhat, "run", path.join("scripts", "dev.ts")], {
    stdio: "inherit",
    env: { ...process.env, ...parsed.env },
  });
  // Ctrl-C reaches the stack too (same process group); this process waits for it to stop, and passes on a
  // SIGTERM sent to it alone.
  process.on("SIGINT", () => undefined);
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (require.main === module) void main();
