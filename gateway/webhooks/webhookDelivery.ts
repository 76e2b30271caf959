import type { DeliveryShares } from "./deliveryShares";

/** What became of one attempt (webhookPost.ts): only `delivered` ends a delivery well. */
export type AttemptOutcome = "delivered" | "http_error" | "network_error" | "timeout" | "refused";

/**
 * Where an event owed to one endpoint stands: `held` while the endpoint is disabled, `failed` once every attempt of
 * the retry schedule failed.
 */
export type DeliveryStatus = "pending" | "held" | "delivered" | "failed";

/** A delivery claimed for one attempt: what to send, where, and the token the outcome is recorded under. */
export interface ClaimedDelivery {
  readonly deliveryId: string;
  readonly claimToken: string;
  readonly eventId: string;
  readonly eventType: string;
  /** When the event happened: the payload's `timestamp`. */
  readonly eventAt: string;
  readonly body: string;
  readonly endpointId: string;
  readonly appId: string;
  readonly url: string;
  /** The endpoint's signing secret, opened (`whsec_…`). */
  readonly secret: string;
  /** The secret a rotation replaced, while it still signs beside the new one (receivers switch over meanwhile). */
  readonly previousSecret?: string;
  /** Attempts made before this one (its place in the retry schedule). */
  readonly attemptsBefore: number;
}

/** One attempt's result, as recorded. */
export interface AttemptResult {
  readonly outcome: AttemptOutcome;
  readonly statusCode?: number;
  readonly error?: string;
  readonly durationMs: number;
  readonly at: Date;
}

/** One attempt, as `webhooks deliveries` lists it. */
export interface DeliveryAttempt {
  readonly eventId: string;
  readonly eventType: string;
  readonly deliveryId: string;
  readonly attempt: number;
  readonly at: string;
  readonly outcome: AttemptOutcome;
  readonly statusCode: number | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  /** The delivery's state now. */
  readonly deliveryStatus: DeliveryStatus;
}

/** The endpoint's run of failures after an attempt was recorded: what decides whether it is disabled. */
export interface EndpointHealth {
  readonly consecutiveFailures: number;
  readonly failingSince: string | undefined;
}

/**
 * How many deliveries a claim takes, for how long, and how many may be in flight per endpoint and per app across
 * instances (deliveryShares.ts).
 */
export interface ClaimOptions extends DeliveryShares {
  readonly limit: number;
  readonly claimMs: number;
  /** Just this delivery, if it is pending and unclaimed (due or not), whatever the shares. */
  readonly deliveryId?: string;
}
