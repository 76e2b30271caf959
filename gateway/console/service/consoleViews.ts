import type { App } from "../../auth/app";
import { type EffectivePolicy, effectivePolicy } from "../../policy/effectivePolicy";
import { readBudgetUsage } from "../../policy/budgetUsage";
import type { TxRecord } from "../../transactions/txRecord";
import type { WebhookEndpoint } from "../../webhooks/webhookEndpoint";
import type { DeliveryAttempt } from "../../webhooks/webhookDelivery";
import type { ProviderSummary } from "../../identity/providerRegistration";
import type { BundleSummary, DeliverySummary, RequestFilter, RequestSummary } from "../consoleReads";
import type { OperatorActionRecord } from "../consoleRepository";
import { type ChainStatus, chainStatus } from "./chainStatus";
import type { ConsoleViewDeps } from "./consoleDeps";

/** A chain's block explorer base URL, without a trailing slash, if the operator set one. */
export const explorerOf = (deps: ConsoleViewDeps, chain: string): string | undefined =>
  deps.config.chains[chain]?.explorerUrl?.replace(/\/+$/, "");

/** The served chains: those with a configured RPC. */
export const servedChains = (deps: ConsoleViewDeps): string[] => [...deps.chains.keys()].sort();

/** The overview: every chain, the webhook backlog, the audit log, maintenance, the latest operator actions. */
export interface Overview {
  readonly chains: readonly ChainStatus[];
  readonly webhooks: { readonly pending: number; readonly oldestEventAt: string | undefined };
  readonly audit: { readonly rows: number; readonly newestAt: string | undefined; readonly lastVerifiedAt?: string };
  readonly maintenance: { readonly enabled: boolean; readonly message?: string };
  readonly actions: readonly OperatorActionRecord[];
}

/** Reads the overview. */
export async function overview(deps: ConsoleViewDeps): Promise<Overview> {
  const [chains, webhooks, rows, head, verified, actions] = await Promise.all([
    Promise.all(servedChains(deps).map((chain) => chainStatus(deps, chain))),
    deps.webhooks.queue(),
    deps.auditLog.highestSeq(),
    deps.auditLog.head(),
    deps.journal.recentActions(1, "audit verify"),
    deps.journal.recentActions(10),
  ]);
  return {
    chains,
    webhooks,
    audit: { rows, newestAt: head?.at, lastVerifiedAt: verified[0]?.at },
    maintenance: deps.maintenance(),
    actions,
  };
}

/** One app as the apps page shows it: its settings as they apply, its use of each chain's budget, its hooks. */
export interface AppSummary {
  readonly app: App;
  readonly policy: EffectivePolicy;
  readonly usage: readonly { readonly chain: string; readonly usedGas: bigint; readonly budgetGas: bigint }[];
  readonly providers: readonly ProviderSummary[];
  readonly endpoints: readonly WebhookEndpoint[];
}

/** Every app, with its policy, budget use, providers and webhook endpoints. */
export async function appSummaries(deps: ConsoleViewDeps): Promise<AppSummary[]> {
  const [apps, usage, providers, endpoints] = await Promise.all([
    deps.apps.list(),
    readBudgetUsage({
      listApps: () => deps.apps.list(),
      transactions: deps.transactions,
      defaults: deps.config.policy,
      clock: deps.clock,
    }),
    deps.providers.list(),
    deps.webhooks.listEndpoints(),
  ]);
  return apps.map((app) => ({
    app,
    policy: effectivePolicy(app, deps.config.policy),
    usage: usage.filter((row) => row.appId === app.id),
    providers: providers.filter((p) => p.appId === app.id && p.disabledAt === undefined),
    endpoints: endpoints.filter((e) => e.appId === app.id),
  }));
}

/** How many points the budget chart has, and their spacing. */
const CHART_POINTS = 96;
const CHART_STEP_MINUTES = 15;

/**
 * An app's budget use over the last day, every 15 minutes: at each point, the gas counted against its budget (its
 * spend over the period ending there, all chains), beside the budget of one chain.
 */
export async function budgetSeries(
  deps: ConsoleViewDeps,
  app: App,
): Promise<{ at: number[]; used: number[]; budget: number[] }> {
  const policy = effectivePolicy(app, deps.config.policy);
  const nowMinute = Math.floor(deps.clock().getTime() / 60_000);
  const periodMinutes = Math.ceil(policy.periodSeconds / 60);
  const first = nowMinute - (CHART_POINTS - 1) * CHART_STEP_MINUTES;
  const spend = await deps.reads.spendByMinute(app.id, first - periodMinutes);
  const at: number[] = [];
  const used: number[] = [];
  for (let minute = first; minute <= nowMinute; minute += CHART_STEP_MINUTES) {
    const inPeriod = spend.filter((s) => s.minute > minute - periodMinutes && s.minute <= minute);
    at.push(minute * 60);
    used.push(Number(inPeriod.reduce((sum, s) => sum + s.gas, 0n)));
  }
  return { at, used, budget: at.map(() => Number(policy.budgetGas)) };
}

/** One app's page: its summary, budget chart and requests (filtered). */
export async function appPageData(deps: ConsoleViewDeps, appId: string, filter: Omit<RequestFilter, "appId">) {
  const summary = (await appSummaries(deps)).find((s) => s.app.id === appId);
  if (!summary) return undefined;
  const [series, requests] = await Promise.all([
    budgetSeries(deps, summary.app),
    deps.reads.requests({ ...filter, appId }),
  ]);
  return { summary, series, requests };
}

/** One request's life: the record, its bundle, its webhook deliveries. */
export interface RequestLife {
  readonly record: TxRecord;
  readonly app: App | undefined;
  readonly bundle: BundleSummary | undefined;
  readonly deliveries: readonly DeliverySummary[];
  /** The chain's block explorer, if the operator set one (EXPLORER_URL_<CHAIN>). */
  readonly explorer: string | undefined;
}

/** Reads one request's life, if there is such a request. */
export async function requestLife(deps: ConsoleViewDeps, txId: string): Promise<RequestLife | undefined> {
  const record = await deps.transactions.find(txId);
  if (!record) return undefined;
  const [app, bundle, deliveries] = await Promise.all([
    deps.apps.findById(record.appId),
    record.bundleId ? deps.reads.bundle(record.bundleId) : Promise.resolve(undefined),
    deps.reads.deliveriesOf(txId),
  ]);
  return { record, app, bundle, deliveries, explorer: explorerOf(deps, record.chain) };
}

/** A webhook endpoint that is failing or disabled, with its last attempts. */
export interface FailingEndpoint {
  readonly endpoint: WebhookEndpoint;
  readonly attempts: readonly DeliveryAttempt[];
}

/** The endpoints disabled or in a run of failures, each with its last five attempts. */
export async function failingEndpoints(deps: ConsoleViewDeps): Promise<FailingEndpoint[]> {
  const endpoints = (await deps.webhooks.listEndpoints()).filter(
    (e) => e.status === "disabled" || e.consecutiveFailures > 0,
  );
  return Promise.all(
    endpoints.map(async (endpoint) => ({ endpoint, attempts: await deps.webhooks.attempts(endpoint.id, 5) })),
  );
}

/** Requests matching a search across every app (the request page's search box). */
export const searchRequests = (deps: ConsoleViewDeps, filter: RequestFilter): Promise<RequestSummary[]> =>
  deps.reads.requests(filter);
