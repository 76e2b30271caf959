import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import type { Config } from "./config/schema";
import { createLogger } from "./http/logging";
import { type RunningServer, sealStoredSecrets, startServer } from "./server";
import { createSecretsKeyring } from "./crypto/secretsKeyring";
import { openDatabase } from "./storage/database";
import { databaseLocation } from "./config/databaseSetting";
import { createRepositories } from "./storage/repositories";
import { createChainClients, verifyChainIds } from "./chains/clients";
import { startTxWorkers, workerLeases } from "./bundler/txWorkers";
import { startWebhookDelivery } from "./webhooks/deliveryWorker";
import { createPrimaryWaker, handleWakeMessage } from "./workerWaker";
import { openAuditLog } from "./custody/audit";
import { handOverEnvironment, handleWalletMessageRequest, remoteCustody } from "./custody/clusterCustody";
import { openCustody } from "./custody/processCustody";
import { checkRoleKeysApart } from "./custody/serviceKeys";
import { servesLocalChainOnly } from "./config/custodySettings";
import { eraseStartupEnvironment } from "./custody/startupEnvironment";
import { createAppTokens } from "./auth/appTokens";
import { admitAppToken } from "./auth/appAuth";

/** Message a worker sends its primary once it listens. */
interface ListeningMessage {
  readonly type: "listening";
  readonly url: string;
  readonly port: number;
}

const RESTART_DELAY_MS = 1000;

/**
 * Runs the service on `config.workers` processes sharing one port (node:cluster), or in this process when
 * it is 1. The primary migrates the database once before forking, and replaces a worker that dies.
 * Call it from the entry file in the primary and in every worker alike.
 */
export async function startService(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
): Promise<RunningServer> {
  if (config.workers <= 1) return startServer(config, { logger });
  return cluster.isPrimary ? startPrimary(config, logger) : startWorker(config, logger);
}

async function startWorker(config: Config, logger: Logger): Promise<RunningServer> {
  // The primary runs the transaction workers: one loop per chain, whatever the number of HTTP workers.
  const server = await startServer(config, {
    logger: logger.child({ worker: cluster.worker?.id }),
    runTxWorkers: false,
    // No transaction key here: their addresses, and EIP-1271 answers asked of the primary, which holds the keys.
    custody: remoteCustody(config, process.env, {
      send: (message) => process.send?.(message),
      onMessage: (listener) => void process.on("message", listener),
    }),
    // An accepted request wakes the primary's loop for its chain rather than waiting for the poll.
    waker: createPrimaryWaker(
      process.send && ((message, callback) => process.send!(message, undefined, undefined, callback)),
      () => process.connected,
    ),
  });
  process.send?.({ type: "listening", url: server.url, port: server.port } satisfies ListeningMessage);
  process.on("message", (message) => {
    if (message === "shutdown") void server.close().then(() => process.exit(0));
  });
  return server;
}

/**
 * The key settings, gone from `process.env`, are still in the environment block this process started with, which a
 * worker reads in /proc/<primary>/environ: erased there too, or warned about where that cannot be done.
 */
function eraseFromStartupEnvironment(settings: readonly string[], logger: Logger): void {
  if (settings.length === 0) return;
  try {
    eraseStartupEnvironment(settings);
  } catch (error) {
    logger.warn(
      { settings, err: error },
      "the key settings stay readable in this process's start-up environment (/proc/<pid>/environ) to its workers",
    );
  }
}

async function startPrimary(config: Config, logger: Logger): Promise<RunningServer> {
  // Migrations, and sealing stored secrets, run once, here, before any worker opens the database.
  const database = await openDatabase(databaseLocation(config));
  const repositories = createRepositories(database.db, () => new Date(), {
    secrets: createSecretsKeyring(config.secrets),
  });
  await sealStoredSecrets(repositories, logger);
  const custody = await openCustody(
    config,
    await openAuditLog(repositories.auditLog, () => new Date(), config.auditLogKey, logger),
    logger,
  );
  // Before anything signs: the primary is the one process that holds the keys and runs the transaction workers.
  checkRoleKeysApart(custody.addresses, { localOnly: servesLocalChainOnly(config.chains) });
  // The workers are forked without the key settings: only the primary ever holds a transaction key.
  eraseFromStartupEnvironment(handOverEnvironment(process.env, custody.addresses), logger);
  const chains = createChainClients(config);
  // The primary runs the transaction workers: it checks the chains it sends to, as every server does.
  await verifyChainIds(chains);
  const txWorkers = startTxWorkers(config, {
    chains,
    repository: repositories.transactions,
    findApp: (appId) => repositories.apps.findById(appId),
    clock: () => new Date(),
    logger: logger.child({ component: "primary" }),
    keys: custody,
    run: config.transactions.worker,
    leases: workerLeases(config, repositories),
  });
  // The primary delivers webhooks too: it runs the workers whose state changes are the events.
  const webhookDelivery =
    config.transactions.worker && config.webhooks.worker
      ? startWebhookDelivery({
          repository: repositories.webhooks,
          settings: config.webhooks,
          clock: () => new Date(),
          logger: logger.child({ component: "webhooks" }),
        })
      : undefined;
  // The primary's own check of the app token an EIP-1271 request comes with: the app it logs is the token's.
  const appTokens = createAppTokens({ ...config.auth, secret: config.auth.tokenSecret, clock: () => new Date() });
  const verifyApp = async (token: string) =>
    (await admitAppToken((appId) => repositories.apps.findById(appId), await appTokens.verify(token))).id;
  // Every worker, a replacement too, may ask for a wake or an EIP-1271 answer; any other message is the fork's own.
  const onMessage = (worker: Worker, message: unknown) =>
    handleWakeMessage(message, txWorkers) ||
    handleWalletMessageRequest(message, {
      walletMessages: custody.walletMessages,
      kernelFactory: config.contracts.kernelFactory,
      verifyApp,
      reply: (answer) => worker.isConnected() && worker.send(answer),
    });
  cluster.on("message", onMessage);
  // Workers run the entry file again; run from TypeScript they need a loader too (the primary's own, if it was given
  // one with -r: `npm run serve` runs under the ts-node binary, which passes none on).
  if (__filename.endsWith(".ts") && !process.execArgv.some((a) => a.includes("register"))) {
    cluster.setupPrimary({ execArgv: [...process.execArgv, "-r", "ts-node/register/transpile-only"] });
  }
  let stopping = false;
  const fork = (): Promise<ListeningMessage> =>
    new Promise((resolve, reject) => {
      const worker: Worker = cluster.fork();
      worker.on("message", (message: ListeningMessage) => {
        if (message?.type === "listening") resolve(message);
      });
      worker.once("exit", (code, signal) => {
        reject(new Error(`worker ${worker.id} exited (${signal ?? code}) before listening`));
        if (stopping) return;
        logger.error({ worker: worker.id, code, signal }, "worker died; starting another");
        setTimeout(
          () => void fork().catch((error: unknown) => logger.error({ err: error }, "restart failed")),
          RESTART_DELAY_MS,
        );
      });
    });
  const [first] = await Promise.all(Array.from({ length: config.workers }, fork));
  logger.info({ url: first!.url, workers: config.workers }, "idwallet listening");
  return {
    url: first!.url,
    port: first!.port,
    close: async () => {
      stopping = true;
      cluster.off("message", onMessage);
      await Promise.all([txWorkers.stop(), webhookDelivery?.stop()]);
      await custody.close();
      for (const chain of chains.values()) chain.provider.destroy();
      await database.close();
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      await Promise.all(
        workers.map(
          (w) =>
            new Promise<void>((resolve) => {
              w.once("exit", () => resolve());
              w.send("shutdown");
            }),
        ),
      );
    },
  };
}
