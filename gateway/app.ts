import type { WalletMessageSigner } from "./custody/walletMessageSigner";
import type { KeyAddresses } from "./custody/serviceKeys";
import cors from "cors";
import express, { type Express } from "express";
import helmet from "helmet";
import type { Logger } from "pino";
import type { AppPrincipal, AppTokens } from "./auth/appTokens";
import type { OtpService } from "./auth/otp/otpService";
import type { UserTokens } from "./auth/userTokens";
import { type ChainCapabilitiesTable, chainCapabilities } from "./services/chainCapabilities";
import type { ChainClient } from "./chains/clients";
import type { Limits } from "./limits/limits";
import type { Config } from "./config/schema";
import { notFound, problemHandler } from "./errors/problemHandler";
import { requestLogging } from "./http/logging";
import { maintenanceGate } from "./http/maintenanceGate";
import { type Metrics, createMetrics } from "./http/metrics";
import type { WorkerLeasesRepository } from "./storage/workerLeasesRepository";
import { requestTimeout } from "./http/requestTimeout";
import { authRouter } from "./routes/auth";
import { docsRouter } from "./routes/docs";
import { kernelSignRouter } from "./routes/kernelSign";
import { operationsRouter } from "./routes/health";
import { networksRouter } from "./routes/networks";
import { otpRouter } from "./routes/otp";
import { resolverRouter } from "./routes/resolver";
import { dustRouter } from "./routes/dust";
import { LastTransferCache } from "./dust/chainReads";
import type { DustDeps } from "./dust/dustService";
import { safesRouter } from "./routes/safes";
import { transactionsRouter } from "./routes/transactions";
import { webhooksRouter } from "./routes/webhooks";
import { readBudgetUsage } from "./policy/budgetUsage";
import { createSpendPolicy } from "./policy/spendPolicy";
import { admitAppToken } from "./services/appAuth";
import { checkHealth } from "./services/health";
import { userIdToName } from "./ens/names";
import { createTokenEndpointLimits } from "./services/tokenEndpointLimits";
import type { KnownProviders } from "./services/knownProviders";
import type { MaintenanceMonitor } from "./services/maintenance";
import type { AppsRepository } from "./storage/appsRepository";
import type { DustRepository } from "./storage/dustRepository";
import type { ProvidersRepository } from "./storage/providersRepository";
import type { RateWindowsRepository } from "./storage/rateWindowsRepository";
import type { SafesRepository } from "./storage/safesRepository";
import type { TransactionsRepository } from "./storage/transactionsRepository";
import type { WebhooksRepository } from "./storage/webhooksRepository";
import type { WorkerWaker } from "./workerWaker";

/** Everything the app is built from; only the entry file reads the environment. */
export interface AppDeps {
  readonly config: Config;
  readonly clock: () => Date;
  readonly logger: Logger;
  readonly tokens: AppTokens;
  readonly maintenance: MaintenanceMonitor;
  readonly chains: ReadonlyMap<string, ChainClient>;
  readonly pingDatabase: () => Promise<void>;
  readonly apps: Pick<AppsRepository, "verifySecret" | "findById" | "list">;
  readonly otp: OtpService;
  readonly userTokens: Pick<UserTokens, "verify">;
  readonly providers: Pick<ProvidersRepository, "find">;
  /** Built-in and registered providers, cached: the ids the resolver answers, and those with ENS names. */
  readonly knownProviders: Pick<KnownProviders, "has" | "hasNames">;
  readonly transactions: TransactionsRepository;
  readonly safes: SafesRepository;
  readonly dust: DustRepository;
  /** The apps' webhook endpoints (issue 21). */
  readonly webhooks: WebhooksRepository;
  /** Per-app request counters, shared by every process on the database (the app rate limit). */
  readonly rateWindows: RateWindowsRepository;
  /** The chain workers' leases, for the metrics (which instance runs which chain). */
  readonly workerLeases?: WorkerLeasesRepository;
  /** Where the token endpoint's per-address and per-client limits are counted (the database: shared, issue 20). */
  readonly limits: Limits;
  /**
   * The custody keys as the API sees them: their addresses, and the wallet signer for EIP-1271 answers (a key in this
   * process, or the primary's asked over IPC); whether the ENS gateway signs answers.
   */
  readonly custody: {
    readonly addresses: KeyAddresses;
    readonly walletSigner: WalletMessageSigner | undefined;
    readonly ccipGateway: boolean;
  };
  /** Chains whose transaction requests are accepted, and the nudge for their worker loop (here or in the primary). */
  readonly txWorkers: { readonly chains: ReadonlySet<string> } & WorkerWaker;
}

/** Builds the express app from injected parts. */
export function createApp(deps: AppDeps): Express {
  const { config } = deps;
  const budgetUsage = () =>
    readBudgetUsage({
      listApps: () => deps.apps.list(),
      transactions: deps.transactions,
      defaults: config.policy,
      clock: deps.clock,
    });
  const metrics = createMetrics(
    () => deps.transactions.countByStatus(),
    budgetUsage,
    () => deps.transactions.revertedGasByChain(),
    deps.workerLeases && (() => deps.workerLeases!.list()),
    deps.webhooks,
  );
  const policy = createSpendPolicy({
    defaults: config.policy,
    rateWindows: deps.rateWindows,
    maxCallGas: config.transactions.maxCallGas,
    clock: deps.clock,
  });
  const capabilities = capabilitiesOf(deps);
  // A waiting status request ends before the request deadline cuts it off.
  const waitTimeoutMs = Math.min(config.transactions.waitTimeoutMs, Math.max(0, config.requestTimeoutMs - 1000));
  const app = express();
  baseMiddleware(app, deps, metrics);

  // The API: closed while in maintenance.
  app.use(["/v1", "/functions", "/api"], maintenanceGate(deps.maintenance, config.maintenance.retryAfterSeconds));
  const admitApp = (principal: AppPrincipal) => admitAppToken((appId) => deps.apps.findById(appId), principal);
  app.use(
    authRouter({
      apps: deps.apps,
      tokens: deps.tokens,
      limits: createTokenEndpointLimits(config.authLimits, deps.limits),
      bodyLimit: config.bodyLimit,
    }),
  );
  app.use(otpRouter({ otp: deps.otp, bodyLimit: config.bodyLimit, tokens: deps.tokens, admitApp }));
  app.use(
    resolverRouter({
      tokens: deps.tokens,
      admitApp,
      requireAuth: config.resolver.requireAuth,
      resolver: {
        factories: { kernel: config.contracts.kernelFactory, base: config.contracts.baseFactory },
        maxIds: config.resolver.maxIds,
        isKnownProvider: (provider) => deps.knownProviders.has(provider),
        ensName: (id) => userIdToName(id, config.ens.domain, (provider) => deps.knownProviders.hasNames(provider)),
      },
      bodyLimit: config.bodyLimit,
      clock: deps.clock,
      onResolved: (count) => metrics.resolvedIds.inc(count),
    }),
  );
  app.use(
    networksRouter({
      config,
      capabilities,
      custody: { safeOperator: deps.custody.addresses.safeOperator, ccipGateway: deps.custody.ccipGateway },
    }),
  );
  const findApp = (appId: string) => deps.apps.findById(appId);
  const proof = {
    verifyUserToken: (token: string) => deps.userTokens.verify(token),
    findProvider: (provider: string) => deps.providers.find(provider),
    providerProofMaxAgeSeconds: config.proofs.providerMaxAgeSeconds,
    userTokensRequireApp: config.proofs.userTokensRequireApp,
    clock: deps.clock,
  };
  app.use(
    kernelSignRouter({
      tokens: deps.tokens,
      admitApp,
      bodyLimit: config.bodyLimit,
      signing: {
        kernelFactory: config.contracts.kernelFactory,
        signer: deps.custody.walletSigner,
        capabilities,
        findApp,
        proof,
      },
    }),
  );
  app.use(
    transactionsRouter({
      tokens: deps.tokens,
      admitApp,
      bodyLimit: config.bodyLimit,
      waitTimeoutMs,
      transactions: {
        repository: deps.transactions,
        capabilities,
        factories: { kernel: config.contracts.kernelFactory, base: config.contracts.baseFactory },
        ownerAccount: config.contracts.ownerAccount,
        maxCalls: config.transactions.maxCalls,
        bounds: config.transactions,
        findApp,
        proof,
        policy,
        onAccepted: (chain) => deps.txWorkers.wake(chain),
      },
    }),
  );

  app.use(
    safesRouter({
      tokens: deps.tokens,
      admitApp,
      bodyLimit: config.bodyLimit,
      waitTimeoutMs,
      safes: {
        safes: deps.safes,
        transactions: deps.transactions,
        capabilities,
        findApp,
        policy,
        onAccepted: (chain) => deps.txWorkers.wake(chain),
      },
    }),
  );

  const webhooks = { repository: deps.webhooks, settings: config.webhooks };
  app.use(webhooksRouter({ tokens: deps.tokens, admitApp, bodyLimit: config.bodyLimit, webhooks }));

  app.use(dustRouter({ dust: dustDeps(deps, capabilities) }));

  // Always up, maintenance or not: operations and the API reference (after the API, which is
  // matched more often and should not walk these routers first).
  app.use(
    operationsRouter({
      registry: metrics.registry,
      adminToken: config.healthAdminToken,
      metricsToken: config.metricsToken,
      health: () =>
        checkHealth({ pingDatabase: deps.pingDatabase, chains: deps.chains, timeoutMs: config.rpcTimeoutMs }),
    }),
  );
  app.use(docsRouter(config.publicUrl));

  app.use(notFound);
  app.use(problemHandler(config.bodyLimit));
  return app;
}

/** What each chain can do here, decided once as the app is built (the workers' chains decided at start-up). */
const capabilitiesOf = (deps: AppDeps): ChainCapabilitiesTable =>
  chainCapabilities(deps.config, deps.chains, deps.txWorkers.chains, deps.custody.addresses);

/** How long a wallet's last Transfer of a token is remembered before the logs are read again. */
const LAST_TRANSFER_TTL_MS = 60_000;

/** What the dust routes read from. */
function dustDeps(deps: AppDeps, capabilities: ChainCapabilitiesTable): DustDeps {
  const { dust } = deps.config;
  return {
    repository: deps.dust,
    capabilities,
    defaultChain: dust.chain,
    lookbackBlocks: dust.lookbackBlocks,
    priceMaxAgeSeconds: dust.priceMaxAgeSeconds,
    multicall3: dust.multicall3,
    lastTransfers: new LastTransferCache(LAST_TRANSFER_TTL_MS),
    clock: deps.clock,
  };
}

/** The dust-order interface alone ({dust_base_url}): /api/*, for serving on DUST_PORT too. */
export function createDustApp(deps: AppDeps): Express {
  const metrics = createMetrics();
  const app = express();
  baseMiddleware(app, deps, metrics);
  app.use("/api", maintenanceGate(deps.maintenance, deps.config.maintenance.retryAfterSeconds));
  app.use(dustRouter({ dust: dustDeps(deps, capabilitiesOf(deps)) }));
  app.use(notFound);
  app.use(problemHandler(deps.config.bodyLimit));
  return app;
}

/** The auth server alone ({auth_url}): the phone-login routes, for serving on AUTH_PORT too. */
export function createAuthApp(deps: AppDeps): Express {
  const metrics = createMetrics();
  const app = express();
  baseMiddleware(app, deps, metrics);
  app.use("/functions", maintenanceGate(deps.maintenance, deps.config.maintenance.retryAfterSeconds));
  const admitApp = (principal: AppPrincipal) => admitAppToken((appId) => deps.apps.findById(appId), principal);
  app.use(otpRouter({ otp: deps.otp, bodyLimit: deps.config.bodyLimit, tokens: deps.tokens, admitApp }));
  app.use(notFound);
  app.use(problemHandler(deps.config.bodyLimit));
  return app;
}

/** What every app of the service runs first: request ids and logs, metrics, security headers, CORS, deadline. */
function baseMiddleware(app: Express, deps: AppDeps, metrics: Metrics): void {
  const { config } = deps;
  app.disable("x-powered-by");
  // TRUST_PROXY: behind a load balancer req.ip is the client, not the balancer, so per-IP limits key on clients.
  app.set("trust proxy", typeof config.trustProxy === "object" ? [...config.trustProxy] : config.trustProxy);
  app.set("query parser", "simple");
  app.use(requestLogging(deps.logger));
  app.use(metrics.middleware);
  app.use(helmet());
  app.use(cors({ origin: config.corsOrigins.includes("*") ? "*" : [...config.corsOrigins], maxAge: 600 }));
  app.use(requestTimeout(config.requestTimeoutMs, problemHandler(config.bodyLimit)));
}
