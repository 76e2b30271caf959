import { LRUCache } from "lru-cache";
import type { LimitCountersRepository } from "../storage/limitCountersRepository";
import { type LimitRule, type LimitVerdict, type Limiter, type Limits, secondsUntil } from "./limits";

/** Keys remembered as over their limit (refused without a database write until their window ends). */
const MAX_REMEMBERED_OVER = 10_000;
/** How often a process deletes ended windows, at most. */
const SWEEP_INTERVAL_MS = 60_000;

/** The hits of one key waiting for the next count: each hit's answer, in the order they came. */
interface WaitingHits {
  readonly answers: { resolve(verdict: LimitVerdict): void; reject(error: unknown): void }[];
}

/**
 * Limits counted in the database (`limit_counters`), so N processes or instances on one database allow N hits in
 * total, not N each (issue 20). A database that cannot answer makes the hit reject with its error, which the problem
 * handler answers 503 STORAGE_UNAVAILABLE: a limit is never skipped.
 *
 * The hits of one rule that come in one turn of the event loop are counted together, in one upsert of their keys (a
 * flood costs a statement per turn, not per request); the hits of one key in it are answered in order, as one by one.
 * A key this process saw over its limit is refused from memory until its window ends, without a write: a window's
 * count only grows, so the answer is the one the database would give. Once a minute a count also deletes every ended
 * window. Windows are timed by `clock`: instances must keep their clocks in step (NTP); a skew only moves where a
 * window ends, never lets a window's count restart.
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
      let waiting = new Map<string, WaitingHits>();
      const count = async (): Promise<void> => {
        const batch = waiting;
        waiting = new Map();
        const now = deps.clock();
        const nowMs = now.getTime();
        const hits = new Map([...batch].map(([key, { answers }]) => [key, answers.length]));
        try {
          const counted = await deps.counters.hitMany(
            rule.name,
            hits,
            now,
            new Date(nowMs + rule.windowSeconds * 1000),
          );
          await sweep(nowMs);
          for (const [key, { answers }] of batch) {
            const { count: total, windowEnd } = counted.get(key)!;
            const before = total - answers.length;
            const retryAfterSeconds = secondsUntil(windowEnd.getTime() - nowMs);
            if (total > rule.points) overUntil.set(`${rule.name}\u0000${key}`, windowEnd.getTime());
            answers.forEach((answer, i) =>
              answer.resolve(before + i + 1 <= rule.points ? { allowed: true } : { allowed: false, retryAfterSeconds }),
            );
          }
        } catch (error) {
          for (const { answers } of batch.values()) answers.forEach((answer) => answer.reject(error));
        }
      };
      return {
        hit(key) {
          const nowMs = deps.clock().getTime();
          const until = overUntil.get(`${rule.name}\u0000${key}`);
          if (until !== undefined && nowMs < until) {
            return Promise.resolve({ allowed: false, retryAfterSeconds: secondsUntil(until - nowMs) });
          }
          return new Promise<LimitVerdict>((resolve, reject) => {
            if (waiting.size === 0) setImmediate(() => void count());
            const hits = waiting.get(key) ?? { answers: [] };
            hits.answers.push({ resolve, reject });
            waiting.set(key, hits);
          });
        },
      };
    },
  };
}
