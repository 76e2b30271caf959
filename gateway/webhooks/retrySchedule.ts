import type { WebhookSettings } from "../config/webhookSettings";
import type { EndpointHealth } from "./webhookDelivery";

/** Jitter of each retry delay: ±20 %, so endpoints that failed together are not retried in one burst. */
const JITTER = 0.2;

/**
 * When to try again after the `attemptsMade`-th attempt failed (1 after the first), or undefined once the schedule
 * is spent and the delivery is given up. `random` is in [0, 1).
 */
export function nextAttemptAt(
  retrySeconds: readonly number[],
  attemptsMade: number,
  now: Date,
  random: () => number = Math.random,
): Date | undefined {
  const delay = retrySeconds[attemptsMade - 1];
  if (delay === undefined) return undefined;
  const jittered = delay * 1000 * (1 - JITTER + 2 * JITTER * random());
  return new Date(now.getTime() + Math.round(jittered));
}

/**
 * Why an endpoint is to be disabled after an attempt, or undefined: every attempt for `disableAfterSeconds` failed,
 * and at least `disableAfterFailures` in a row (a receiver that is down for a day, not one that stumbled).
 */
export function disableReason(
  health: EndpointHealth,
  settings: Pick<WebhookSettings, "disableAfterFailures" | "disableAfterSeconds">,
  now: Date,
): string | undefined {
  if (health.failingSince === undefined || health.consecutiveFailures < settings.disableAfterFailures) return undefined;
  const failingMs = now.getTime() - new Date(health.failingSince).getTime();
  if (failingMs < settings.disableAfterSeconds * 1000) return undefined;
  return `${health.consecutiveFailures} attempts in a row failed since ${health.failingSince}`;
}
