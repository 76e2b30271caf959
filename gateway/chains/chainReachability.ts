import type { HealthReport } from "./health";

/** A configured chain's RPC as the service last saw it. */
export interface LastSeen {
  /** It answered: eth_blockNumber at the last health check, or its chain id at start-up. */
  readonly reachable: boolean;
  /** When, by the service's clock. */
  readonly checkedAt: Date;
}

/**
 * What the service last knew of each configured chain's RPC: GET /v1/networks says which chains it serves and
 * whether they are reachable (issue 35), without an RPC call of its own per request.
 */
export interface ChainReachability {
  /**
   * Each configured chain's last known state (absent: not checked yet), answered from memory. When the newest is
   * older than the maximum age, one health check starts in the background, for the callers after it.
   */
  lastSeen(): ReadonlyMap<string, LastSeen>;
  /** The health check with its chains' results kept: GET /health runs through it, so its probes count too. */
  check(): Promise<HealthReport>;
}

/**
 * Keeps the chains' last known reachability from `check` (the process's shared, rate-bound health check), seeded
 * with the chains whose RPC answered its chain id at start-up (`verified`: server.ts refuses to start otherwise).
 * The age is timed with the process's own clock, as the checks' rate is (http/sharedRuns.ts).
 */
export function createChainReachability(options: {
  readonly check: () => Promise<HealthReport>;
  readonly clock: () => Date;
  /** How old the newest check may be before a caller of lastSeen() starts the next. */
  readonly maxAgeMs: number;
  readonly verified?: { readonly chains: Iterable<string>; readonly at: Date };
}): ChainReachability {
  const known = new Map<string, LastSeen>();
  let checkedAt = -Infinity;
  let refreshing = false;
  if (options.verified) {
    for (const name of options.verified.chains) known.set(name, { reachable: true, checkedAt: options.verified.at });
    checkedAt = performance.now();
  }
  const check = async (): Promise<HealthReport> => {
    const report = await options.check();
    const at = options.clock();
    for (const [name, result] of Object.entries(report.checks.chains)) {
      known.set(name, { reachable: result.status === "ok", checkedAt: at });
    }
    checkedAt = performance.now();
    return report;
  };
  return {
    check,
    lastSeen() {
      if (!refreshing && performance.now() - checkedAt >= options.maxAgeMs) {
        refreshing = true;
        // A failed check records nothing (checkHealth itself never fails: a failing RPC is a result).
        void check()
          .catch(() => undefined)
          .finally(() => {
            refreshing = false;
          });
      }
      return known;
    },
  };
}
