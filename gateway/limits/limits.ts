/** One request limit: at most `points` hits per key in a window of `windowSeconds`, starting at the key's first hit. */
export interface LimitRule {
  /** Names the limit where it is counted, e.g. `otp.request.ip`; instances on one database share it by this name. */
  readonly name: string;
  readonly points: number;
  readonly windowSeconds: number;
}

/** A limit's answer to one hit: within it, or over it until the key's window ends. */
export type LimitVerdict = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** One rule over its keys. */
export interface Limiter {
  /** Counts one hit of `key` and says whether it is within the limit; rejects if the count cannot be kept. */
  hit(key: string): Promise<LimitVerdict>;
}

/** Where the service's request limits are counted: the database (shared) or this process's memory (alone). */
export interface Limits {
  limiter(rule: LimitRule): Limiter;
}

/** Whole seconds until `ms` from now, at least 1 (a Retry-After of 0 would invite a retry at once). */
export const secondsUntil = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
