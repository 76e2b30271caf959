import type { RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { registerWebhookGauges, type WebhookMetricsSource } from "./webhookMetrics";

/** The service's Prometheus metrics, in a registry of its own (one per app, so tests stay isolated). */
export interface Metrics {
  readonly registry: Registry;
  readonly resolvedIds: Counter;
  readonly middleware: RequestHandler;
  /** Starts timing a request outside express; the function returned records it under its route and status. */
  timeRequest(method: string | undefined): (route: string, status: number) => void;
}

/** Where the transaction gauges read from, at each scrape. */
export type TransactionCounts = () => Promise<{ chain: string; status: string; count: number }[]>;

/** Where the budget gauges read from, at each scrape: each app's gas use and budget per chain. */
export type BudgetUsageSource = () => Promise<
  readonly { appId: string; chain: string; usedGas: bigint; budgetGas: bigint }[]
>;

/** Where the relayer's loss gauge reads from, at each scrape: gas of each chain's reverted wallet bundles. */
export type RevertedGasSource = () => Promise<readonly { chain: string; gas: bigint }[]>;

/** Where the worker-lease gauge reads from, at each scrape: each chain worker's lease, its holder and its end. */
export type LeaseSource = () => Promise<readonly { name: string; holder: { host: string }; expiresAt: Date }[]>;

/**
 * Creates the registry, the HTTP metrics, Node's default process metrics and, given `transactionCounts`, the
 * transaction requests by chain and status (read from the database at scrape time, so every process of a
 * cluster reports the same queue) and, given `budgetUsage`, each app's budget use per chain (read the same way).
 */
export function createMetrics(
  transactionCounts?: TransactionCounts,
  budgetUsage?: BudgetUsageSource,
  revertedGas?: RevertedGasSource,
  leases?: LeaseSource,
  webhooks?: WebhookMetricsSource,
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  if (transactionCounts) {
    new Gauge({
      name: "idwallet_transactions",
      help: "Transaction requests by chain and status (queued and submitted are the queue)",
      labelNames: ["chain", "status"],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await transactionCounts()) this.set({ chain: row.chain, status: row.status }, row.count);
      },
    });
  }
  if (budgetUsage) registerBudgetGauges(registry, budgetUsage);
  if (revertedGas) {
    // Read from the database like the others, so every process reports the same total (it only grows).
    new Gauge({
      name: "idwallet_relayer_reverted_gas_total",
      help: "Gas the relayer burned on wallet bundles that reverted as a whole, charged to no app's budget",
      labelNames: ["chain"],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await revertedGas()) this.set({ chain: row.chain }, Number(row.gas));
      },
    });
  }
  if (leases) {
    // Which instance runs each chain's worker: a chain whose lease has ended has no holder (alert on it).
    new Gauge({
      name: "idwallet_worker_lease_held",
      help: "1 for the instance holding a chain worker's lease (INSTANCE_ID), 0 once its lease has ended unrenewed",
      labelNames: ["lease", "instance"],
      registers: [registry],
      async collect() {
        this.reset();
        const now = Date.now();
        for (const lease of await leases()) {
          this.set({ lease: lease.name, instance: lease.holder.host }, lease.expiresAt.getTime() > now ? 1 : 0);
        }
      },
    });
  }
  if (webhooks) registerWebhookGauges(registry, webhooks, () => new Date());
  const requests = new Histogram({
    name: "idwallet_http_request_duration_seconds",
    help: "HTTP request duration by route and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  const resolvedIds = new Counter({
    name: "idwallet_resolved_user_ids_total",
    help: "User ids resolved to wallet addresses",
    registers: [registry],
  });
  const timeRequest = (method: string | undefined) => {
    const end = requests.startTimer({ method });
    return (route: string, status: number) => void end({ route, status: String(status) });
  };
  const middleware: RequestHandler = (req, res, next) => {
    const end = timeRequest(req.method);
    res.on("finish", () => {
      // The matched route pattern, never the raw path: bounded label values.
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      end(`${req.baseUrl}${route}`, res.statusCode);
    });
    next();
  };
  return { registry, resolvedIds, middleware, timeRequest };
}

/** Gas used of each app's budget on each chain in its current period, and the budget itself (read once a scrape). */
function registerBudgetGauges(registry: Registry, budgetUsage: BudgetUsageSource): void {
  // prom-client collects both gauges of one scrape concurrently: they share one read, made by the first to ask.
  let reading: ReturnType<BudgetUsageSource> | undefined;
  const readOnce = () =>
    (reading ??= budgetUsage().finally(() => {
      reading = undefined;
    }));
  const gauge = (name: string, help: string, value: (row: { usedGas: bigint; budgetGas: bigint }) => bigint) =>
    new Gauge({
      name,
      help,
      labelNames: ["app", "chain"],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await readOnce()) this.set({ app: row.appId, chain: row.chain }, Number(value(row)));
      },
    });
  gauge(
    "idwallet_app_budget_used_gas",
    "Gas an app's requests count for on a chain in its current budget period (worst case until settled)",
    (row) => row.usedGas,
  );
  gauge("idwallet_app_budget_gas", "An app's gas budget per chain per period", (row) => row.budgetGas);
}
