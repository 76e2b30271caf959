import type { AddressInfo } from "node:net";
import { verifyEnsResolver } from "./ens/resolverCheck";
import { type Server, createServer } from "node:http";
import { sql } from "kysely";
import type { Logger } from "pino";
import { type AppDeps, createApp, createAuthApp, createDustApp } from "./app";
import { createOtpService } from "./auth/otp/otpService";
import { createSmsSender } from "./auth/sms";
import { createUserTokens } from "./auth/userTokens";
import { createAppTokens } from "./auth/appTokens";
import { createChainClients, verifyChainIds } from "./chains/clients";
import { createSecretsKeyring } from "./crypto/secretsKeyring";
import { openAuditLog } from "./custody/audit";
import type { CustodySigner } from "./custody/custodySigner";
import { type ProcessCustody, openCustody } from "./custody/processCustody";
import { checkCcipSignerApart, checkRoleKeysApart, loadCcipSigner } from "./custody/serviceKeys";
import { servesLocalChainOnly } from "./config/custodySettings";
import type { Config } from "./config/schema";
import { createCcipGateway } from "./routes/ccip/ccipGateway";
import { createLogger } from "./http/logging";
import { createSharedLimits } from "./limits/sharedLimits";
import { createKnownProviders } from "./identity/knownProviders";
import { createMaintenanceMonitor } from "./config/maintenanceMonitor";
import { type TxWorkers, startTxWorkers, workerLeases } from "./bundler/txWorkers";
import { openDatabase } from "./storage/database";
import { databaseLocation } from "./config/databaseSetting";
import type { ProvidersRepository } from "./identity/providersRepository";
import type { WebhooksRepository } from "./webhooks/webhooksRepository";
import { consoleStoresOf, createRepositories } from "./storage/repositories";
import { consoleServed } from "./config/consoleSettings";
import type { WorkerWaker } from "./workerWaker";
import { type WebhookDelivery, startWebhookDelivery } from "./webhooks/deliveryWorker";

/** A running service. */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Where the auth server listens on its own port, when AUTH_PORT is set. */
  readonly authUrl?: string;
  /** Where the dust interface listens on its own port, when DUST_PORT is set. */
  readonly dustUrl?: string;
  close(): Promise<void>;
}

/** How often the stored maintenance switch is re-read. */
const MAINTENANCE_POLL_MS = 2000;
/** How often the registered provider names are re-read (the admin CLI changes them from another process). */
const PROVIDERS_POLL_MS = 2000;

/**
 * Seals every stored HS256 provider secret under SECRETS_KEY (plain-text ones and those of SECRETS_KEY_PREVIOUS)
 * before the service answers; throws, naming the providers, without a key or with a secret that does not open.
 * Webhook signing secrets of SECRETS_KEY_PREVIOUS are sealed again too, so dropping it later stops no delivery.
 */
export async function sealStoredSecrets(
  repositories: {
    providers: Pick<ProvidersRepository, "resealSecrets">;
    webhooks: Pick<WebhooksRepository, "resealSecrets">;
  },
  logger: Logger,
) {
  const done = await repositories.providers.resealSecrets();
  if (done.sealed + done.resealed > 0) logger.info(done, "provider secrets sealed under SECRETS_KEY");
  const webhooks = await repositories.webhooks.resealSecrets();
  if (webhooks > 0) logger.info({ resealed: webhooks }, "webhook signing secrets sealed again under SECRETS_KEY");
}

/**
 * Opens storage (running migrations), seals stored secrets, checks every configured RPC's chain id, builds the app
 * and listens. Refuses to start on a bad database, a stored secret it cannot seal or open, a custody key serving two
 * roles, a chain-id mismatch, or an ENS resolver deployed for other wallets or another domain.
 */
export async function startServer(
  config: Config,
  options: {
    logger?: Logger;
    clock?: () => Date;
    /** Run the transaction workers here (default: the transactions.worker setting); false in cluster workers. */
    runTxWorkers?: boolean;
    /** Wakes the worker loops after an accepted request (default: those of this process). */
    waker?: WorkerWaker;
    /** The custody keys as this process has them (default: opened here, every signature logged). */
    custody?: ProcessCustody;
  } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? (() => new Date());
  const database = await openDatabase(databaseLocation(config));
  let txWorkers: TxWorkers | undefined;
  let webhookDelivery: WebhookDelivery | undefined;
  let custody: ProcessCustody | undefined;
  let ccipSigner: CustodySigner | undefined;
  try {
    const repositories = createRepositories(database.db, clock, { secrets: createSecretsKeyring(config.secrets) });
    await sealStoredSecrets(repositories, logger);
    custody =
      options.custody ??
      (await openCustody(config, await openAuditLog(repositories.auditLog, clock, config.auditLogKey, logger), logger));
    ccipSigner = await loadCcipSigner(config);
    checkCcipSignerApart(custody.addresses, ccipSigner?.address);
    checkRoleKeysApart(custody.addresses, { localOnly: servesLocalChainOnly(config.chains) });
    const chains = createChainClients(config);
    await verifyChainIds(chains);
    // Every configured chain answered just now: GET /v1/networks says so until a health check finds otherwise.
    const chainsVerifiedAt = clock();
    await verifyEnsResolver(config.ens, config.contracts.kernelFactory, chains);
    const maintenance = createMaintenanceMonitor({
      configured: config.maintenance,
      store: repositories.settings,
      intervalMs: MAINTENANCE_POLL_MS,
      onError: (error) => logger.error({ err: error }, "reading the maintenance switch failed"),
    });
    await maintenance.refresh();
    const knownProviders = createKnownProviders({
      store: repositories.providers,
      intervalMs: PROVIDERS_POLL_MS,
      onError: (error) => logger.error({ err: error }, "reading the registered providers failed"),
    });
    await knownProviders.refresh();
    // Started before listening: a restart resumes every queued and submitted request at once (invariant 4).
    txWorkers = startTxWorkers(config, {
      chains,
      repository: repositories.transactions,
      findApp: (appId) => repositories.apps.findById(appId),
      clock,
      logger,
      keys: custody,
      run: options.runTxWorkers ?? config.transactions.worker,
      leases: workerLeases(config, repositories),
    });
    // Webhooks are delivered where the transaction workers run (claims keep several processes and instances apart).
    if ((options.runTxWorkers ?? config.transactions.worker) && config.webhooks.worker) {
      webhookDelivery = startWebhookDelivery({
        repository: repositories.webhooks,
        settings: config.webhooks,
        clock,
        logger: logger.child({ component: "webhooks" }),
      });
    }
    const workers = txWorkers;
    const delivery = webhookDelivery;
    const openedCustody = custody;
    const waker = options.waker ?? workers;
    const userTokens = createUserTokens({
      secret: config.auth.tokenSecret,
      issuer: config.auth.issuer,
      clock,
      ttlSeconds: config.otp.userTokenTtlSeconds,
    });
    // Every process and instance on the database shares these counts (issue 20).
    const limits = createSharedLimits({ counters: repositories.limitCounters, clock });
    const deps: AppDeps = {
      config,
      clock,
      logger,
      tokens: createAppTokens({ ...config.auth, secret: config.auth.tokenSecret, clock }),
      maintenance,
      chains,
      chainsVerifiedAt,
      apps: repositories.apps,
      providers: repositories.providers,
      knownProviders,
      transactions: repositories.transactions,
      safes: repositories.safes,
      dust: repositories.dust,
      webhooks: repositories.webhooks,
      rateWindows: repositories.rateWindows,
      workerLeases: repositories.workerLeases,
      limits,
      txWorkers: { chains: workers.chains, wake: (chain) => waker.wake(chain) },
      custody: {
        addresses: custody.addresses,
        walletSigner: custody.walletMessages,
        ccipGateway: ccipSigner !== undefined,
      },
      userTokens,
      // One OTP service for both ports, so they share its limits.
      otp: createOtpService({
        config,
        repository: repositories.otp,
        sms: createSmsSender(config.sms, logger.child({ component: "sms" }), clock),
        userTokens,
        limits,
        clock,
      }),
      pingDatabase: async () => void (await sql`select 1`.execute(database.db)),
      console: consoleServed(config.console) ? consoleStoresOf(repositories) : undefined,
      ccipGateway: createCcipGateway(config, ccipSigner, clock, logger, knownProviders, limits),
    };
    const server: Server = createServer(createApp(deps));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
    // Slow or stalled clients cannot hold connections open (invariant 5).
    server.requestTimeout = config.requestTimeoutMs;
    server.headersTimeout = Math.min(config.requestTimeoutMs, 10_000);
    server.keepAliveTimeout = 5_000;
    const authServer =
      config.authServer.port === undefined
        ? undefined
        : await listen(createAuthApp(deps), config.authServer.port, config.host);
    const dustServer =
      config.dust.port === undefined ? undefined : await listen(createDustApp(deps), config.dust.port, config.host);
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
    const authUrl = authServer && `http://${config.host}:${(authServer.address() as AddressInfo).port}`;
    const dustUrl = dustServer && `http://${config.host}:${(dustServer.address() as AddressInfo).port}`;
    logger.info({ url, ...(authUrl ? { authUrl } : {}), ...(dustUrl ? { dustUrl } : {}) }, "idwallet listening");
    return {
      url,
      port,
      ...(authUrl ? { authUrl } : {}),
      ...(dustUrl ? { dustUrl } : {}),
      close: async () => {
        maintenance.stop();
        knownProviders.stop();
        await Promise.all([server, authServer, dustServer].map((s) => s && closeServer(s)));
        await Promise.all([workers.stop(), delivery?.stop()]);
        await Promise.allSettled([openedCustody.close(), ccipSigner?.close?.()]);
        for (const chain of chains.values()) chain.provider.destroy();
        await database.close();
      },
    };
  } catch (error) {
    await Promise.all([txWorkers?.stop(), webhookDelivery?.stop()]);
    await Promise.allSettled([custody?.close(), ccipSigner?.close?.()]);
    await database.close();
    throw error;
  }
}

/** Listens with `handler` on host:port. */
async function listen(handler: Parameters<typeof createServer>[1], port: number, host: string): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** Stops accepting, drops open connections, resolves when closed. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
