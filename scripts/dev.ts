/**
 * `npm start`: the one-command local stack. Chain on 127.0.0.1:8545, API on 127.0.0.1:3000, data under
 * data/; override with HOST, DEV_RPC_PORT, PORT, DATA_DIR; DATABASE_URL puts the database on PostgreSQL. IDWALLET_HSM=1
 * keeps the dev keys in a SoftHSM2 token under the data directory (made once) and has the service sign through
 * PKCS#11. CHAIN_NODE=anvil runs the chain on anvil (its own process, saved in the data directory across restarts)
 * instead of Hardhat's in-process node (new on every start, the old chain's records cleared). FRESH=1 (what
 * `npm start -- --fresh` sets) starts a new chain either way. LOG_FORMAT=json logs pino's JSON lines instead of
 * readable ones. Ctrl-C stops everything.
 */
import { chainNodeKind } from "./localStack/chainNode";
import { type LocalStack, startLocalStack } from "./localStack/startLocalStack";
import { banner, chainNotice } from "./localStack/banner";
import { listenSettings } from "./localStack/portCheck";

/** A switch setting (IDWALLET_HSM, FRESH): 1 or true is on; unset, empty, 0 or false is off. */
function switchSetting(name: string, value: string | undefined): boolean {
  if (value === undefined || ["", "0", "false"].includes(value)) return false;
  if (["1", "true"].includes(value)) return true;
  throw new Error(`${name} must be 1 or 0, not "${value}"`);
}

async function main(): Promise<void> {
  const env = process.env;
  const started: { stack?: LocalStack } = {};
  let stopping = false;
  const close = (running: LocalStack) =>
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  // Set before starting: a Ctrl-C during the start waits for it and then stops everything (anvil runs in its own
  // process group and saves its chain only when this process stops it).
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log(started.stack ? "\nstopping…" : "\nstopping once started…");
    if (started.stack) void close(started.stack);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const stack = await startLocalStack({
    ...listenSettings(env),
    dataDir: env.DATA_DIR || "data",
    hsm: switchSetting("IDWALLET_HSM", env.IDWALLET_HSM),
    chainNode: chainNodeKind(env.CHAIN_NODE),
    fresh: switchSetting("FRESH", env.FRESH),
    env,
  });
  started.stack = stack;
  if (stopping) return close(stack);
  // Once, as one write, after the start-up logs: the logs that follow go below it.
  process.stdout.write(`${banner(stack, chainNotice(stack))}\n`);
  // Keep running until a signal arrives.
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  // A setting to change is said in one line; anything else with its stack.
  console.error(error instanceof Error && error.name === "StackPortError" ? `npm start: ${error.message}` : error);
  process.exit(1);
});
