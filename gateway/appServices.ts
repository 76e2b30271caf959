import type { AppDeps } from "./appDeps";
import { type SpendPolicy, createSpendPolicy } from "./policy/spendPolicy";
import type { UserProofDeps } from "./auth/userProof";
import type { App } from "./auth/app";
import { type ChainCapabilitiesTable, chainCapabilities } from "./accept/chainCapabilities";
import type { TransactionsDeps } from "./accept/transactions";
import { createL1DataReservation } from "./userop/l1DataReservation";
import { type AdmitAnonymous, anonymousAdmission } from "./http/anonymousLimit";
import { createProcessLimits } from "./limits/processLimits";
import { createListCursors } from "./transactions/listCursor";
import { checkHealth } from "./chains/health";
import { type ChainReachability, createChainReachability } from "./chains/chainReachability";
import { throttled } from "./http/sharedRuns";

/** The least time between two health checks of a process: a load balancer probes every few seconds. */
const HEALTH_CHECK_INTERVAL_MS = 1000;
/** How old the chains' last known reachability may be when GET /v1/networks answers from it (it starts the next). */
const REACHABILITY_MAX_AGE_MS = 10_000;

/**
 * The services' parts the routes share, built once per app: the express routes and the fast paths in front of them
 * then act on the same spend policy (whose shedding of an app over its rate is per process) and capabilities.
 */
export interface AppServices {
  readonly policy: SpendPolicy;
  readonly capabilities: ChainCapabilitiesTable;
  /** How long a status request waits for a final state: it ends before the request deadline cuts it off. */
  readonly waitTimeoutMs: number;
  readonly findApp: (appId: string) => Promise<App | undefined>;
  readonly proof: UserProofDeps;
  readonly transactions: TransactionsDeps;
  /**
   * POST /v1/resolver's limit of requests without a token (RESOLVER_ANONYMOUS_PER_MINUTE), counted in this process's
   * memory as the CCIP gateway's lookups are: it guards the process's CPU, and the route touches no database.
   */
  readonly admitAnonymousResolver: AdmitAnonymous;
  /** The health check (GET /health) and the chains' last known reachability it keeps (GET /v1/networks). */
  readonly chainHealth: ChainReachability;
}

/** What each chain can do here, decided once as the app is built (the workers' chains decided at start-up). */
export const capabilitiesOf = (deps: AppDeps): ChainCapabilitiesTable =>
  chainCapabilities(deps.config, deps.chains, deps.txWorkers.chains, deps.custody.addresses);

/** Builds the shared parts of the routes' services over `deps`. */
export function appServices(deps: AppDeps): AppServices {
  const { config } = deps;
  const policy = createSpendPolicy({
    defaults: config.policy,
    rateWindows: deps.rateWindows,
    maxCallGas: config.transactions.maxCallGas,
    clock: deps.clock,
  });
  const capabilities = capabilitiesOf(deps);
  const findApp = (appId: string) => deps.apps.findById(appId);
  const proof: UserProofDeps = {
    verifyUserToken: (token: string) => deps.userTokens.verify(token),
    findProvider: (provider: string) => deps.providers.find(provider),
    providerProofMaxAgeSeconds: config.proofs.providerMaxAgeSeconds,
    userTokensRequireApp: config.proofs.userTokensRequireApp,
    clock: deps.clock,
  };
  const chainHealth = createChainReachability({
    // Anyone may ask, as often as they like: the checks (a database ping, eth_blockNumber on every chain) run at most
    // once per HEALTH_CHECK_INTERVAL_MS in this process, whatever the number of callers (design invariant 10). Never
    // answered from before the probe came: an outage shows at the next probe.
    check: throttled(
      () => checkHealth({ pingDatabase: deps.pingDatabase, chains: deps.chains, timeoutMs: config.rpcTimeoutMs }),
      HEALTH_CHECK_INTERVAL_MS,
    ),
    clock: deps.clock,
    maxAgeMs: REACHABILITY_MAX_AGE_MS,
    ...(deps.chainsVerifiedAt ? { verified: { chains: deps.chains.keys(), at: deps.chainsVerifiedAt } } : {}),
  });
  return {
    policy,
    capabilities,
    chainHealth,
    waitTimeoutMs: Math.min(config.transactions.waitTimeoutMs, Math.max(0, config.requestTimeoutMs - 1000)),
    findApp,
    proof,
    admitAnonymousResolver: anonymousAdmission(
      "resolver.anonymous.ip",
      config.resolver.anonymousPerMinute,
      createProcessLimits(),
      config.trustProxy,
    ),
    transactions: {
      repository: deps.transactions,
      capabilities,
      factories: { kernel: config.contracts.kernelFactory, base: config.contracts.baseFactory },
      ownerAccount: config.contracts.ownerAccount,
      maxCalls: config.transactions.maxCalls,
      bounds: config.transactions,
      l1DataGas: createL1DataReservation(deps.chains),
      findApp,
      proof,
      policy,
      onAccepted: (chain) => deps.txWorkers.wake(chain),
      // Every process of a deployment has the token secret: a cursor one gave out is read by any other.
      cursors: createListCursors(config.auth.tokenSecret),
    },
  };
}
