import { LRUCache } from "lru-cache";
import type { LimitCountersRepository } from "../storage/limitCountersRepository";
import { type LimitRule, type Limiter, type Limits, secondsUntil } from "./limits";

/** Keys remembered as over their limit (refused without a database write until their window ends). */
const MAX_REMEMBERED_OVER = 10_000;
/** How often a process deletes ended windows, at most. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Limits counted in the database (`limit_counters`), so N processes or instances on one database allow N hits in
 * total, not N each (issue 20). A hit is one upsert; a database that cannot answer makes the hit reject with its
 * error, which the problem handler answers 503 STORAGE_UNAVAILABLE: a limit is never skipped.
 *
 * A key this process saw over its limit is refused from memory until its window ends, without a write: a window's
 * count only grows, so the answer is the one the database would give, and a flood from one address costs no write per
 * request. Once a minute a hit also deletes every ended window. Windows are timed by `clock`: instances must keep
 * their clocks in step (NTP); a skew only moves where a window ends, never lets a window's count restart.
 */
export function createSharedLimits(deps: { counters: LimitCountersRepository; clock: () => Date }): Limits {
  const overUntil = new LRUCache<string, number>({ max: MAX_REMEMBERED_OVER });
  let nextSweepMs = 0;
  const sweep = async (nowMs: number): Promise<void> => {
    if (nowMs < nextSweepMs) return;
    nextSweepMs = nowMs + SWEEP_INTERVAL_MS;
    await deps.counters.deleteEnded(new Date(nowMs));
  };
  return {
    limiter(rule: LimitRule): Limiter {
      return {
        async hit(key) {
          const now = deps.clock();
          const nowMs = now.getTime();
          const memo = `${rule.name}\u0000${key}`;
          const until = overUntil.get(memo);
          if (until !== undefined && nowMs < until)
            return { allowed: false, retryAfterSeconds: secondsUntil(until - nowMs) };
          const newEnd = new Date(nowMs + rule.windowSeconds * 1000);
          const { count, windowEnd } = await deps.counters.hit(rule.name, key, now, newEnd);
          await sweep(nowMs);
          if (count <= rule.points) return { allowed: true };
          overUntil.set(memo, windowEnd.getTime());
          return { allowed: false, retryAfterSeconds: secondsUntil(windowEnd.getTime() - nowMs) };
        },
      };
    },
  };
}
