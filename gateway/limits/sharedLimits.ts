import { LRUCache } from "lru-cache";
import type { LimitCountersRepository } from "./limitCountersRepository";
import { type LimitRule, type LimitVerdict, type Limiter, type Limits, secondsUntil } from "./limits";

/** Keys remembered as over their limit (refused without a database write until their window ends). */
const MAX_REMEMBERED_OVER = 10_000;
/** How often a process deletes ended windows, at most. */
const SWEEP_INTERVAL_MS = 60_000;

/** Each hit's answer, in the order the hits came. */
type Answers = { resolve(verdict: LimitVerdict): void; reject(error: unknown): void }[];

/**
 * Limits counted in the database (`limit_counters`), so N processes or instances on one database allow N hits in
 * total, not N each (issue 20). A database that cannot answer makes the hit reject with its error, which the problem
 * handler answers 503 STORAGE_UNAVAILABLE: a limit is never skipped.
 *
 * The hits that come in one turn of the event loop, of every rule, are counted together: one transaction, an upsert of
 * its keys per rule (a flood costs a commit per turn, not per request); the hits of one key in it are answered in
 * order, as one by one. A key this process saw over its limit is refused from memory until its window ends, without a
 * write: a window's count only grows, so the answer is the one the database would give. Once a minute a count also
 * deletes every ended window. Windows are timed by `clock`: instances must keep their clocks in step (NTP); a skew only
 * moves where a window ends, never lets a window's count restart.
 */
export function createSharedLimits(deps: { counters: LimitCountersRepository; clock: () => Date }): Limits {
  const overUntil = new LRUCache<string, number>({ max: MAX_REMEMBERED_OVER });
  let nextSweepMs = 0;
  const sweep = async (nowMs: number): Promise<void> => {
    if (nowMs < nextSweepMs) return;
    nextSweepMs = nowMs + SWEEP_INTERVAL_MS;
    await deps.counters.deleteEnded(new Date(nowMs));
  };
  /** The hits of this turn, by rule name: the rule and each key's answers. */
  let waiting = new Map<string, { rule: LimitRule; keys: Map<string, Answers> }>();

  const count = async (): Promise<void> => {
    const batch = [...waiting.values()];
    waiting = new Map();
    const now = deps.clock();
    const nowMs = now.getTime();
    try {
      const counted = await deps.counters.hitMany(
        batch.map(({ rule, keys }) => ({
          rule: rule.name,
          hits: new Map([...keys].map(([key, answers]) => [key, answers.length])),
          newWindowEnd: new Date(nowMs + rule.windowSeconds * 1000),
        })),
        now,
      );
      await sweep(nowMs);
      batch.forEach(({ rule, keys }, i) => {
        for (const [key, answers] of keys) {
          const { count: total, windowEnd } = counted[i]!.get(key)!;
          const before = total - answers.length;
          const retryAfterSeconds = secondsUntil(windowEnd.getTime() - nowMs);
          if (total > rule.points) overUntil.set(`${rule.name}\u0000${key}`, windowEnd.getTime());
          answers.forEach((answer, n) =>
            answer.resolve(before + n + 1 <= rule.points ? { allowed: true } : { allowed: false, retryAfterSeconds }),
          );
        }
      });
    } catch (error) {
      for (const { keys } of batch) for (const answers of keys.values()) answers.forEach((a) => a.reject(error));
    }
  };

  return {
    limiter(rule: LimitRule): Limiter {
      return {
        hit(key) {
          const nowMs = deps.clock().getTime();
          const until = overUntil.get(`${rule.name}\u0000${key}`);
          if (until !== undefined && nowMs < until) {
            return Promise.resolve({ allowed: false, retryAfterSeconds: secondsUntil(until - nowMs) });
          }
          return new Promise<LimitVerdict>((resolve, reject) => {
            if (waiting.size === 0) setImmediate(() => void count());
            const pending = waiting.get(rule.name) ?? { rule, keys: new Map<string, Answers>() };
            waiting.set(rule.name, pending);
            const answers = pending.keys.get(key) ?? [];
            answers.push({ resolve, reject });
            pending.keys.set(key, answers);
          });
        },
      };
    },
  };
}
