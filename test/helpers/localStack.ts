import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import type { ChainNodeKind } from "../../scripts/localStack/chainNode";
import { type LocalStack, startLocalStack } from "../../scripts/localStack/startLocalStack";
import { stackDatabaseEnv } from "./testDatabase";

/**
 * The local stack on free ports, quiet, on `dataDir` (default: a fresh temporary directory); `hsm`: HSM mode;
 * `chainNode`: anvil instead of Hardhat (saved in `dataDir` across restarts); `fresh`: a new chain; `env`: settings of
 * the test's own. Its database: SQLite in `dataDir`, or (TEST_DATABASE=postgres) a PostgreSQL database
 * kept for `dataDir`.
 */
export const startTestStack = async (
  dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-")),
  { env, ...options }: { hsm?: boolean; chainNode?: ChainNodeKind; fresh?: boolean; env?: Record<string, string> } = {},
): Promise<LocalStack> =>
  startLocalStack({
    host: "127.0.0.1",
    rpcPort: 0,
    apiPort: 0,
    dataDir,
    ...options,
    env: { ...(await stackDatabaseEnv(dataDir)), ...env },
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
