/**
 * `npm start`: the one-command local stack. Chain on 127.0.0.1:8545, API on 127.0.0.1:3000, data under
 * data/; override with HOST, DEV_RPC_PORT, PORT, DATA_DIR; DATABASE_URL puts the database on PostgreSQL. IDWALLET_HSM=1
 * keeps the dev keys in a SoftHSM2 token under the data directory (made once) and has the service sign through
 * PKCS#11. CHAIN_NODE=anvil runs the chain on anvil (its own process) instead of Hardhat's in-process node. Ctrl-C
 * stops everything.
 */
import { chainNodeKind } from "./localStack/chainNode";
import { startLocalStack } from "./localStack/startLocalStack";
import { banner } from "./localStack/banner";

/** IDWALLET_HSM: 1 or true for HSM mode; unset, empty, 0 or false for raw keys. */
function hsmMode(value: string | undefined): boolean {
  if (value === undefined || ["", "0", "false"].includes(value)) return false;
  if (["1", "true"].includes(value)) return true;
  throw new Error(`IDWALLET_HSM must be 1 or 0, not "${value}"`);
}

async function main(): Promise<void> {
  const env = process.env;
  const stack = await startLocalStack({
    host: env.HOST ?? "127.0.0.1",
    rpcPort: Number(env.DEV_RPC_PORT ?? 8545),
    apiPort: Number(env.PORT ?? 3000),
    dataDir: env.DATA_DIR ?? "data",
    hsm: hsmMode(env.IDWALLET_HSM),
    chainNode: chainNodeKind(env.CHAIN_NODE),
    env,
  });
  console.log(banner(stack));
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log("\nstopping…");
    stack.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Keep running until a signal arrives.
  await new Promise(() => undefined);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
