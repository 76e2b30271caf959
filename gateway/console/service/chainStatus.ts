import type { ChainQueue, FinishedRequest } from "../consoleReads";
import type { ConsoleViewDeps } from "./consoleDeps";

const HOUR_MS = 3_600_000;
/** A balance read that takes longer is shown as unknown: a slow node must not hold the page. */
const BALANCE_TIMEOUT_MS = 2_000;
/** The most finished requests a chain's hour is read from. */
const HOUR_ROWS = 5_000;
/** EntryPoint v0.7 `balanceOf(address)`: a paymaster's deposit. */
const BALANCE_OF = "0x70a08231";

/** A balance that pays for gas, and how long it lasts at the last hour's spend. */
export interface Funds {
  readonly label: string;
  readonly address: string;
  readonly wei: bigint | undefined;
  /** Hours it lasts at the last hour's spend; undefined: nothing was spent (or the balance is unknown). */
  readonly hoursLeft: number | undefined;
}

/** One served chain on the overview. */
export interface ChainStatus {
  readonly chain: string;
  readonly reachable: boolean | undefined;
  readonly checkedAt: string | undefined;
  readonly funds: readonly Funds[];
  /** Wei the relayer spent over the last hour, at most (each request's gas at its bundle's max fee). */
  readonly hourSpendWei: bigint;
  readonly queue: ChainQueue;
}

const withTimeout = <T>(work: Promise<T>): Promise<T | undefined> =>
  Promise.race([
    work.catch(() => undefined),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), BALANCE_TIMEOUT_MS).unref()),
  ]);

/** The wei a chain's relayer spent on `finished` (each request's gas at its bundle's max fee per gas). */
export const spendWeiOf = (finished: readonly FinishedRequest[]): bigint =>
  finished.reduce((sum, request) => sum + request.settledGas * (request.maxFeePerGas ?? 0n), 0n);

/** How many hours `wei` lasts spending `perHourWei` an hour; undefined when nothing is spent or the balance unknown. */
export function hoursLeft(wei: bigint | undefined, perHourWei: bigint): number | undefined {
  if (wei === undefined || perHourWei <= 0n) return undefined;
  return Number((wei * 100n) / perHourWei) / 100;
}

/** The paymasters whose EntryPoint deposits pay for the service's operations. */
function paymasters(deps: ConsoleViewDeps): { label: string; address: string }[] {
  const { sponsorPaymaster, custodyPaymaster } = deps.config.contracts;
  return [
    ...(sponsorPaymaster ? [{ label: "sponsor paymaster deposit", address: sponsorPaymaster }] : []),
    ...(custodyPaymaster ? [{ label: "custody paymaster deposit", address: custodyPaymaster }] : []),
  ];
}

/** Reads one chain's state for the overview: RPC health, funds and their runway, queue. */
export async function chainStatus(deps: ConsoleViewDeps, chain: string): Promise<ChainStatus> {
  const client = deps.chains.get(chain);
  const seen = deps.reachability().get(chain);
  const now = deps.clock();
  const [queue, finished] = await Promise.all([
    deps.reads.queue(chain),
    deps.reads.finishedSince(chain, new Date(now.getTime() - HOUR_MS), HOUR_ROWS),
  ]);
  const hourSpendWei = spendWeiOf(finished);
  const entryPoint = deps.config.contracts.entryPoint;
  const reads: Promise<Funds>[] = [];
  if (deps.relayer) {
    const relayer = deps.relayer;
    reads.push(
      withTimeout(client ? client.provider.getBalance(relayer) : Promise.resolve(undefined)).then((wei) => ({
        label: "relayer balance",
        address: relayer,
        wei,
        hoursLeft: hoursLeft(wei, hourSpendWei),
      })),
    );
  }
  for (const paymaster of paymasters(deps)) {
    const data = `${BALANCE_OF}${paymaster.address.slice(2).toLowerCase().padStart(64, "0")}`;
    const read =
      client && entryPoint
        ? client.provider.call({ to: entryPoint, data }).then((hex) => BigInt(hex))
        : Promise.resolve(undefined);
    reads.push(withTimeout(read).then((wei) => ({ ...paymaster, wei, hoursLeft: hoursLeft(wei, hourSpendWei) })));
  }
  return {
    chain,
    reachable: seen?.reachable,
    checkedAt: seen?.checkedAt.toISOString(),
    funds: await Promise.all(reads),
    hourSpendWei,
    queue,
  };
}

/** One minute of a chain's last hour: requests included and failed, and their mean inclusion latency. */
export interface MinutePoint {
  /** Seconds since the epoch, the minute's start (uPlot's x). */
  readonly at: number;
  readonly included: number;
  readonly failed: number;
  readonly latencySeconds: number | null;
}

/** A chain's last hour minute by minute, from its finished requests (oldest minute first). */
export function hourSeries(finished: readonly FinishedRequest[], now: Date): MinutePoint[] {
  const lastMinute = Math.floor(now.getTime() / 60_000);
  const points = Array.from({ length: 60 }, (_, i) => ({
    minute: lastMinute - 59 + i,
    included: 0,
    failed: 0,
    latencyTotal: 0,
  }));
  for (const request of finished) {
    const finishedAt = Date.parse(request.finishedAt);
    const point = points[Math.floor(finishedAt / 60_000) - (lastMinute - 59)];
    if (!point) continue;
    if (request.status === "failed") point.failed++;
    else {
      point.included++;
      point.latencyTotal += (finishedAt - Date.parse(request.createdAt)) / 1000;
    }
  }
  return points.map((p) => ({
    at: p.minute * 60,
    included: p.included,
    failed: p.failed,
    latencySeconds: p.included > 0 ? Math.round((p.latencyTotal / p.included) * 100) / 100 : null,
  }));
}

/** A chain's failed requests of the last hour by error code, most frequent first. */
export function failuresByCode(finished: readonly FinishedRequest[]): { code: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const request of finished) {
    if (request.status !== "failed") continue;
    const code = request.errorCode ?? "UNKNOWN";
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return [...counts].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count);
}

/** What the chain page shows: its status, its hour, its recent bundles and its failures by code. */
export async function chainPageData(deps: ConsoleViewDeps, chain: string) {
  const now = deps.clock();
  const [status, finished, bundles, requests] = await Promise.all([
    chainStatus(deps, chain),
    deps.reads.finishedSince(chain, new Date(now.getTime() - HOUR_MS), HOUR_ROWS),
    deps.reads.recentBundles(chain, 20),
    deps.reads.requests({ chain, limit: 20 }),
  ]);
  const explorer = deps.config.chains[chain]?.explorerUrl?.replace(/\/+$/, "");
  return { status, series: hourSeries(finished, now), failures: failuresByCode(finished), bundles, requests, explorer };
}
