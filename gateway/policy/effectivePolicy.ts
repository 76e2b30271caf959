import type { Config } from "../config/schema";
import type { App } from "../auth/app";
import type { RateLimit } from "../config/policySettings";

/** The deployment's defaults (POLICY_DEFAULT_*). */
export type PolicyDefaults = Config["policy"];

/** What applies to one app's requests now: its settings over the defaults, within them in test mode. */
export interface EffectivePolicy {
  readonly budgetGas: bigint;
  readonly periodSeconds: number;
  readonly rate: RateLimit;
  readonly chains: readonly string[] | undefined;
  readonly targets: readonly string[] | undefined;
  readonly maxValueWei: bigint | undefined;
  readonly userDailyCapGas: bigint | undefined;
}

const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
/**
 * Whether `rate` allows no more than `limit` in any stretch of time: no more requests per window and no shorter window
 * (600/min has 10/s's average, but lets 600 through in one second).
 */
const withinRate = (rate: RateLimit, limit: RateLimit): boolean =>
  rate.requests <= limit.requests && rate.perSeconds >= limit.perSeconds;

/**
 * The policy of `app`: each setting the operator made for it, else the default. A test-mode app never gets more
 * than the defaults (a smaller budget, a longer period, a slower rate, a lower cap), whatever was set for it.
 */
export function effectivePolicy(app: App, defaults: PolicyDefaults): EffectivePolicy {
  const set = app.policy;
  const budgetGas = set.budgetGas ?? defaults.budgetGas;
  const periodSeconds = set.periodSeconds ?? defaults.periodSeconds;
  const rate = set.rate ?? defaults.rate;
  const userDailyCapGas = set.userDailyCapGas ?? defaults.userDailyCapGas;
  const base = {
    chains: set.chains,
    targets: set.targets,
    maxValueWei: set.maxValueWei,
  };
  if (!app.testMode) return { ...base, budgetGas, periodSeconds, rate, userDailyCapGas };
  return {
    ...base,
    budgetGas: minBig(budgetGas, defaults.budgetGas),
    periodSeconds: Math.max(periodSeconds, defaults.periodSeconds),
    rate: withinRate(rate, defaults.rate) ? rate : defaults.rate,
    userDailyCapGas:
      defaults.userDailyCapGas === undefined
        ? userDailyCapGas
        : minBig(userDailyCapGas ?? defaults.userDailyCapGas, defaults.userDailyCapGas),
  };
}
