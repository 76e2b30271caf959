import type { AddressInfo } from "node:net";
import { type Server, createServer } from "node:http";
import { sql } from "kysely";
import type { Logger } from "pino";
import { createApp } from "./app";
import { createAppTokens } from "./auth/appTokens";
import { createChainClients, verifyChainIds } from "./chains/clients";
import type { Config } from "./config/schema";
import { CCIP_PREFIX } from "./http/ccipHandler";
import { createCcipGateway } from "./ens/ccipGateway";
import { createLogger } from "./http/logging";
import { createMaintenanceMonitor } from "./services/maintenance";
import { openDatabase } from "./storage/database";
import { createRepositories } from "./storage/repositories";

/** A running service. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** How often the stored maintenance switch is re-read. */
const MAINTENANCE_POLL_MS = 2000;

/**
 * Opens storage (running migrations), checks every configured RPC's chain id, builds the app and listens.
 * Refuses to start on a bad database or a chain-id mismatch.
 */
export async function startServer(
  config: Config,
  options: { logger?: Logger; clock?: () => Date } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? (() => new Date());
  const database = await openDatabase(config.databasePath!);
  try {
    const repositories = createRepositories(database.db, clock);
    const chains = createChainClients(config);
    await verifyChainIds(chains);
    const maintenance = createMaintenanceMonitor({
      configured: config.maintenance,
      store: repositories.settings,
      intervalMs: MAINTENANCE_POLL_MS,
      onError: (error) => logger.error({ err: error }, "reading the maintenance switch failed"),
    });
    await maintenance.refresh();
    const app = createApp({
      config,
      clock,
      logger,
      tokens: createAppTokens({ ...config.auth, secret: config.auth.tokenSecret, clock }),
      maintenance,
      chains,
      apps: repositories.apps,
      pingDatabase: async () => void (await sql`select 1`.execute(database.db)),
    });
    const ccip = createCcipGateway(config, clock, logger);
    const server: Server = createServer((req, res) =>
      ccip && req.url?.startsWith(CCIP_PREFIX) ? ccip(req, res) : app(req, res),
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
    // Slow or stalled clients cannot hold connections open (invariant 5).
    server.requestTimeout = config.requestTimeoutMs;
    server.headersTimeout = Math.min(config.requestTimeoutMs, 10_000);
    server.keepAliveTimeout = 5_000;
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
    logger.info({ url }, "idwallet listening");
    return {
      url,
      port,
      close: async () => {
        maintenance.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        for (const chain of chains.values()) chain.provider.destroy();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
