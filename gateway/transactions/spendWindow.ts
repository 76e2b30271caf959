/**
 * How spend is counted against a limit over a rolling period (design §1.7). A request counts at the start of the
 * minute it was accepted in (its bucket), under its app's key and its user id's. Until it is final it counts for its
 * pending gas (the larger of the worst case it reserved and what its sends burned); once final, for what it cost. A
 * window counts its buckets, and every request accepted before it and still pending (it can still spend).
 */

/** Width of a spend bucket: a request counts as accepted at the start of its minute. */
export const BUCKET_MS = 60_000;

/** The bucket (minutes since the epoch) a moment falls in. */
export function minuteOf(at: string | Date): number {
  return Math.floor((typeof at === "string" ? Date.parse(at) : at.getTime()) / BUCKET_MS);
}

/** The first bucket a window that starts at `since` counts: a request in it was accepted after `since`. */
export const firstMinuteAfter = (since: Date): number => minuteOf(since) + 1;

/** Whose spend a key sums: the app's total, or one user id's share of it. */
export type SpendScope = "app" | "user";

/** Whose spend on which chain a window sums: the app's (user id empty), or one of its user ids'. */
export interface SpendKey {
  readonly appId: string;
  readonly scope: SpendScope;
  readonly userId: string;
  readonly chain: string;
}

/** The key of an app's total spend on a chain. */
export const appSpendKey = (appId: string, chain: string): SpendKey => ({ appId, scope: "app", userId: "", chain });

/** The key of one user id's spend of an app on a chain. */
export const userSpendKey = (appId: string, userId: string, chain: string): SpendKey => ({
  appId,
  scope: "user",
  userId,
  chain,
});

/**
 * The keys a request counts under, the app's first (the order its buckets are written in, everywhere): its app's and
 * its user id's (empty for a Safe request, which acts for no user id; those count under that empty user id).
 */
export function spendKeysOf(request: { readonly appId: string; readonly userId: string; readonly chain: string }) {
  return [appSpendKey(request.appId, request.chain), userSpendKey(request.appId, request.userId, request.chain)];
}

/** The gas a pending request counts for: the larger of the worst case it reserved and what its sends burned. */
export function pendingGasOf(request: { readonly reservedGas: bigint; readonly spentGas: bigint }): bigint {
  return request.reservedGas > request.spentGas ? request.reservedGas : request.spentGas;
}

/** A key's buckets summed, split at a window's first minute. */
export interface WindowSums {
  /** Pending gas of the window's requests not yet final. */
  readonly pendingGas: bigint;
  /** What the window's final requests cost. */
  readonly settledGas: bigint;
  /** Pending gas of requests accepted before the window and still not final. */
  readonly overdueGas: bigint;
}

/** The gas a window counts: its requests, final or pending, and every request from before it still pending. */
export const usedGas = (sums: WindowSums): bigint => sums.pendingGas + sums.settledGas + sums.overdueGas;

/** One minute's bucket of a key. */
export interface SpendBucket {
  readonly minute: number;
  readonly pendingGas: bigint;
  readonly settledGas: bigint;
}

/** One counted part of a window: when its requests count as accepted and the gas they count for. */
export interface SpendEntry {
  readonly createdAt: string;
  readonly gas: bigint;
}

/** Buckets as entries: accepted at the start of their minute, for all the gas they count. */
export const bucketEntries = (buckets: readonly SpendBucket[]): SpendEntry[] =>
  buckets.map((bucket) => ({
    createdAt: new Date(bucket.minute * BUCKET_MS).toISOString(),
    gas: bucket.pendingGas + bucket.settledGas,
  }));

/** What a limit check reads of the stored spend, in the transaction that stores the request. */
export interface SpendWindowReader {
  /** `key`'s buckets summed: pending and settled from `firstMinute` on, pending before it. */
  sums(key: SpendKey, firstMinute: number): Promise<WindowSums>;
  /** `key`'s buckets from `firstMinute` on, oldest first. */
  buckets(key: SpendKey, firstMinute: number): Promise<SpendBucket[]>;
}
