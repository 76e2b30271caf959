import type { ChainClient } from "./clients";

/** Outcome of one dependency check. */
export interface CheckResult {
  readonly status: "ok" | "failing";
  readonly latencyMs: number;
  readonly detail?: string;
  readonly blockNumber?: number;
}

/** The health report of GET /health. */
export interface HealthReport {
  readonly status: "ok" | "degraded";
  readonly checks: { database: CheckResult; chains: Record<string, CheckResult> };
}

/** The report as anyone may see it: each component's status, no error messages, latencies or block numbers. */
export interface PublicHealthReport {
  readonly status: "ok" | "degraded";
  readonly checks: {
    database: { status: CheckResult["status"] };
    chains: Record<string, { status: CheckResult["status"] }>;
  };
}

/**
 * Strips a report to its statuses. A failing check's message can name hosts, files, ports or RPC URLs (with their API
 * keys): only the operator's admin token sees them (HEALTH_ADMIN_TOKEN).
 */
export function publicHealthReport(report: HealthReport): PublicHealthReport {
  const { database, chains } = report.checks;
  return {
    status: report.status,
    checks: {
      database: { status: database.status },
      chains: Object.fromEntries(Object.entries(chains).map(([name, check]) => [name, { status: check.status }])),
    },
  };
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });

async function timed(check: () => Promise<number | void>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  try {
    const value = await withTimeout(check(), timeoutMs);
    const latencyMs = Math.round(performance.now() - started);
    return { status: "ok", latencyMs, ...(typeof value === "number" ? { blockNumber: value } : {}) };
  } catch (error) {
    return { status: "failing", latencyMs: Math.round(performance.now() - started), detail: (error as Error).message };
  }
}

/** Checks the database and every configured RPC in parallel, each bounded by `timeoutMs`. */
export async function checkHealth(deps: {
  pingDatabase: () => Promise<void>;
  chains: ReadonlyMap<string, ChainClient>;
  timeoutMs: number;
}): Promise<HealthReport> {
  const [database, ...chainResults] = await Promise.all([
    timed(deps.pingDatabase, deps.timeoutMs),
    // A live probe: provider.getBlockNumber() may answer from ethers' 250 ms request cache, kept warm by the
    // workers, and so report a node that has just gone away as up.
    ...[...deps.chains.values()].map((c) =>
      timed(async () => Number(await c.provider.send("eth_blockNumber", [])), deps.timeoutMs),
    ),
  ]);
  const chains = Object.fromEntries([...deps.chains.keys()].map((name, i) => [name, chainResults[i]!]));
  const healthy = database!.status === "ok" && chainResults.every((r) => r.status === "ok");
  return { status: healthy ? "ok" : "degraded", checks: { database: database!, chains } };
}
