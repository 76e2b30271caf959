import express, { type Express } from "express";
import type { AppDeps } from "./appDeps";
import type { AppPrincipal } from "./auth/appTokens";
import { type NodeHandler, byPrefix } from "./http/nodeHandler";
import { CCIP_PREFIX } from "./routes/ccip/ccipHandler";
import { type FastPathSettings, createFastPath } from "./http/fastPath";
import { routerOf } from "./http/expressRoutes";
import type { Route } from "./http/route";
import { type AppServices, appServices, capabilitiesOf } from "./appServices";
import { type ResponseHeaders, createResponseHeaders } from "./http/responseHeaders";
import type { ResolverOptions } from "./identity/addressResolver";
import type { ChainCapabilitiesTable } from "./accept/chainCapabilities";
import { methodNotAllowed } from "./http/methodNotAllowed";
import { notFound, problemHandler } from "./http/problemHandler";
import { requestLogging } from "./http/logging";
import { maintenanceGate } from "./http/maintenanceGate";
import { type Metrics, createMetrics } from "./http/metrics";
import { requestTimeout } from "./http/requestTimeout";
import { authRouter } from "./routes/auth";
import { docsRouter } from "./routes/docs";
import { kernelSignRouter } from "./routes/kernelSign";
import { operationsRouter } from "./routes/health";
import { networksRouter } from "./routes/networks";
import { otpRouter } from "./routes/otp";
import { resolverRoute } from "./routes/resolver";
import { dustRouter } from "./routes/dust";
import { dustDepsOf } from "./dust/accept/dustDepsOf";
import { safesRouter } from "./routes/safes";
import { transactionRoutes } from "./routes/transactions";
import { webhooksRouter } from "./routes/webhooks";
import { readBudgetUsage } from "./policy/budgetUsage";
import { admitAppToken } from "./auth/appAuth";
import { userIdToName } from "./ens/names";
import { createTokenEndpointLimits } from "./auth/tokenEndpointLimits";
import { consoleRouter } from "./console/web/consoleRouter";
import { consoleDepsOf } from "./console/service/consoleDeps";
import { consoleServed } from "./config/consoleSettings";

export type { AppDeps } from "./appDeps";

/**
 * Builds the service's request handler from injected parts, served in this order: the ENS CCIP-read gateway
 * (routes/ccip/: outside maintenance, so names keep resolving), the routes marked fast (POST /v1/resolver,
 * POST /v1/kernel/tx, GET /v1/kernel/tx/{id}) on the node:http fast path (http/fastPath.ts, from the same route
 * definitions and over the same services as the express app), then the express app with every router.
 */
export function createApp(deps: AppDeps): NodeHandler {
  const metrics = appMetrics(deps);
  const headers = createResponseHeaders(deps.config.corsOrigins);
  const services = appServices(deps);
  const api = createExpressApp(deps, metrics, headers, services);
  return byPrefix(CCIP_PREFIX, deps.ccipGateway, createFastPaths(deps, metrics, headers, services, api));
}

/**
 * The app's routes marked fast on node:http in front of `api` (the express app serving every route, these too), with
 * the express app's metrics, headers and services.
 */
export function createFastPaths(
  deps: AppDeps,
  metrics: Metrics,
  headers: ResponseHeaders,
  services: AppServices,
  api: NodeHandler,
): NodeHandler {
  const { resolver, transactions } = routeDefinitions(deps, metrics, services);
  return createFastPath([...resolver, ...transactions], fastPathSettings(deps, metrics, headers), api);
}

/** The routes declared with http/route.ts, by router (each mounted on express where its router stood). */
export const routeDefinitions = (
  deps: AppDeps,
  metrics: Metrics,
  services: AppServices,
): { resolver: Route[]; transactions: Route[] } => ({
  resolver: [
    resolverRoute({
      requireAuth: deps.config.resolver.requireAuth,
      admitAnonymous: services.admitAnonymousResolver,
      resolver: resolverOptions(deps),
      clock: deps.clock,
      onResolved: (count) => metrics.resolvedIds.inc(count),
    }),
  ],
  transactions: transactionRoutes({ transactions: services.transactions, waitTimeoutMs: services.waitTimeoutMs }),
});

/** What the fast path takes of the app: the express app's own logger, metrics, headers, limits, tokens and gate. */
const fastPathSettings = (deps: AppDeps, metrics: Metrics, headers: ResponseHeaders): FastPathSettings => ({
  logger: deps.logger,
  metrics,
  headers,
  bodyLimit: deps.config.bodyLimit,
  requestTimeoutMs: deps.config.requestTimeoutMs,
  tokens: deps.tokens,
  admitApp: appAdmission(deps),
  maintenance: deps.maintenance,
});

/** What the resolver answers from: the factories, the id limit and the provider cache. */
const resolverOptions = (deps: AppDeps): ResolverOptions => ({
  factories: { kernel: deps.config.contracts.kernelFactory, base: deps.config.contracts.baseFactory },
  maxIds: deps.config.resolver.maxIds,
  isKnownProvider: (provider) => deps.knownProviders.has(provider),
  ensName: (id) => userIdToName(id, deps.config.ens.domain, (provider) => deps.knownProviders.hasNames(provider)),
});

/** Whether a verified app token's app may still use it (auth/appAuth.ts). */
const appAdmission = (deps: AppDeps) => (principal: AppPrincipal) =>
  admitAppToken((appId) => deps.apps.findById(appId), principal);

/** The API's metrics: HTTP, and the queue and budget gauges read from storage at each scrape. */
function appMetrics(deps: AppDeps): Metrics {
  const budgetUsage = () =>
    readBudgetUsage({
      listApps: () => deps.apps.list(),
      transactions: deps.transactions,
      defaults: deps.config.policy,
      clock: deps.clock,
    });
  return createMetrics(
    () => deps.transactions.countByStatus(),
    budgetUsage,
    () => deps.transactions.revertedGasByChain(),
    deps.workerLeases && (() => deps.workerLeases!.list()),
    deps.webhooks,
  );
}

/**
 * The express app alone, every route included: those marked fast too, for the requests the fast path leaves to it
 * (and as the reference the fast path is tested against).
 */
export function createExpressApp(
  deps: AppDeps,
  metrics: Metrics = appMetrics(deps),
  headers: ResponseHeaders = createResponseHeaders(deps.config.corsOrigins),
  services: AppServices = appServices(deps),
): Express {
  const { config } = deps;
  const { policy, capabilities, waitTimeoutMs, findApp, proof } = services;
  const app = express();
  baseMiddleware(app, deps, metrics, headers);
  // The operator console (issue 38): only where the operator configured it, and up in maintenance too.
  if (deps.console && consoleServed(config.console))
    app.use(consoleRouter(consoleDeps(deps, services), config.console));

  // The API: closed while in maintenance.
  app.use(["/v1", "/functions", "/api"], maintenanceGate(deps.maintenance, config.maintenance.retryAfterSeconds));
  const admitApp = appAdmission(deps);
  app.use(
    authRouter({
      apps: deps.apps,
      tokens: deps.tokens,
      limits: createTokenEndpointLimits(config.authLimits, deps.limits),
      bodyLimit: config.bodyLimit,
    }),
  );
  app.use(otpRouter({ otp: deps.otp, bodyLimit: config.bodyLimit, tokens: deps.tokens, admitApp }));
  const routes = routeDefinitions(deps, metrics, services);
  const mounting = { tokens: deps.tokens, admitApp, bodyLimit: config.bodyLimit };
  app.use(routerOf(routes.resolver, mounting));
  app.use(
    networksRouter({
      config,
      capabilities,
      reachability: services.chainHealth,
      custody: { safeOperator: deps.custody.addresses.safeOperator, ccipGateway: deps.custody.ccipGateway },
    }),
  );
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
  app.use(routerOf(routes.transactions, mounting));

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
        l1DataGas: services.transactions.l1DataGas,
        onAccepted: (chain) => deps.txWorkers.wake(chain),
        cursors: services.transactions.cursors,
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
      // Shared with GET /v1/networks, which answers from what the checks found (appServices.ts).
      health: services.chainHealth.check,
    }),
  );
  app.use(docsRouter(config.publicUrl));

  app.use(methodNotAllowed(app));
  app.use(notFound);
  app.use(problemHandler(config.bodyLimit));
  return app;
}

/** What the console reads and changes: its stores, and the service's chains, their reachability and maintenance. */
const consoleDeps = (deps: AppDeps, services: AppServices) =>
  consoleDepsOf(deps.console!, {
    config: deps.config,
    chains: deps.chains,
    reachability: () => services.chainHealth.lastSeen(),
    relayer: deps.custody.addresses.relayer,
    clock: deps.clock,
    transactions: deps.transactions,
    webhooks: deps.webhooks,
    maintenance: deps.maintenance,
  });

/** What the dust routes read from. */
const dustDeps = (deps: AppDeps, capabilities: ChainCapabilitiesTable) =>
  dustDepsOf(deps.config.dust, deps.dust, capabilities, deps.clock, deps.limits);

/** The dust-order interface alone ({dust_base_url}): /api/*, for serving on DUST_PORT too. */
export function createDustApp(deps: AppDeps): Express {
  const metrics = createMetrics();
  const app = express();
  baseMiddleware(app, deps, metrics);
  app.use("/api", maintenanceGate(deps.maintenance, deps.config.maintenance.retryAfterSeconds));
  app.use(dustRouter({ dust: dustDeps(deps, capabilitiesOf(deps)) }));
  app.use(methodNotAllowed(app));
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
  app.use(
    otpRouter({ otp: deps.otp, bodyLimit: deps.config.bodyLimit, tokens: deps.tokens, admitApp: appAdmission(deps) }),
  );
  app.use(methodNotAllowed(app));
  app.use(notFound);
  app.use(problemHandler(deps.config.bodyLimit));
  return app;
}

/** What every app of the service runs first: request ids and logs, metrics, security headers, CORS, deadline. */
function baseMiddleware(
  app: Express,
  deps: AppDeps,
  metrics: Metrics,
  headers: ResponseHeaders = createResponseHeaders(deps.config.corsOrigins),
): void {
  const { config } = deps;
  app.disable("x-powered-by");
  // TRUST_PROXY: behind a load balancer req.ip is the client, not the balancer, so per-IP limits key on clients.
  app.set("trust proxy", typeof config.trustProxy === "object" ? [...config.trustProxy] : config.trustProxy);
  app.set("query parser", "simple");
  app.use(requestLogging(deps.logger));
  app.use(metrics.middleware);
  app.use(headers.security);
  app.use(headers.cors);
  app.use(requestTimeout(config.requestTimeoutMs, problemHandler(config.bodyLimit)));
}
