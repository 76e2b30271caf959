import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { type LimitRule, type Limiter, type Limits, secondsUntil } from "./limits";

/**
 * Limits counted in this process's memory: each process (a cluster worker, an instance) counts alone, so a limit of
 * N allows N per process. Only for what protects the process rather than a shared quota: the CCIP-read gateway, a hot
 * read path that touches no database (a write per ENS lookup would cost it most of its throughput).
 */
export function createProcessLimits(): Limits {
  return {
    limiter(rule: LimitRule): Limiter {
      const counter = new RateLimiterMemory({ points: rule.points, duration: rule.windowSeconds });
      return {
        async hit(key) {
          try {
            await counter.consume(key);
            return { allowed: true };
          } catch (rejection) {
            if (!(rejection instanceof RateLimiterRes)) throw rejection;
            return { allowed: false, retryAfterSeconds: secondsUntil(rejection.msBeforeNext) };
          }
        },
      };
    },
  };
}
