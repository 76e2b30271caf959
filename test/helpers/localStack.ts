import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { type LocalStack, startLocalStack } from "../../scripts/localStack/startLocalStack";

/** The local stack on free ports, quiet, on `dataDir` (default: a fresh temporary directory); `hsm`: HSM mode. */
export const startTestStack = (
  dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-")),
  options: { hsm?: boolean } = {},
): Promise<LocalStack> =>
  startLocalStack({
    host: "127.0.0.1",
    rpcPort: 0,
    apiPort: 0,
    dataDir,
    ...options,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
