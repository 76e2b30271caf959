/**
 * Hit counters of the request limits (phone login, the token endpoint), kept in the database so every process and
 * every instance on it counts the same (issue 20). A key's window starts at its first hit and lasts the limit's period.
 */
export interface LimitCountersRepository {
  /**
   * Counts one hit of `key` under `rule` at `now`, in one statement (atomic across processes): in the key's window if
   * it has not ended, else in a new one ending at `newWindowEnd`. Returns the window's count with this hit, and its end.
   */
  hit(rule: string, key: string, now: Date, newWindowEnd: Date): Promise<{ count: number; windowEnd: Date }>;
  /**
   * Counts, for each of `batches`, `hits.get(key)` hits of each key under its rule at `now`, as `hit` does one, all in
   * one transaction (a statement per rule). Returns, per batch, each key's window count with its hits and the window's
   * end.
   */
  hitMany(batches: readonly RuleHits[], now: Date): Promise<Map<string, { count: number; windowEnd: Date }>[]>;
  /** Deletes every window that ended at or before `now`; returns how many. */
  deleteEnded(now: Date): Promise<number>;
}

/** Hits of several keys under one rule, and where a window they start ends. */
export interface RuleHits {
  readonly rule: string;
  readonly hits: ReadonlyMap<string, number>;
  readonly newWindowEnd: Date;
}
