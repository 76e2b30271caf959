import { randomBytes } from "node:crypto";
import type { WebhookEventType } from "./webhookEvents";

/** Whether an endpoint is sent events: `disabled` after a run of failures (or by the operator), until re-enabled. */
export type EndpointStatus = "enabled" | "disabled";

/** An app's webhook endpoint, as the service keeps it (its signing secret apart). */
export interface WebhookEndpoint {
  readonly id: string;
  readonly appId: string;
  readonly url: string;
  /** The event types it is sent; empty: all of them. */
  readonly events: readonly WebhookEventType[];
  readonly status: EndpointStatus;
  /** Why it was disabled, while it is. */
  readonly disabledReason: string | undefined;
  /** Failed attempts since its last delivery. */
  readonly consecutiveFailures: number;
  /** When the current run of failures began, if one is running. */
  readonly failingSince: string | undefined;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A new endpoint, as registered (by the app over the API, or by the operator). */
export interface NewWebhookEndpoint {
  readonly appId: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  /** The signing secret, `whsec_…` (sealed before it is stored). */
  readonly secret: string;
}

/**
 * A new signing secret in Standard Webhooks' form: `whsec_` and the base64 of 32 random bytes (the specification asks
 * for 24 to 64). It is shown once, when made, and stored sealed.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** A new endpoint id: `ep_` and 16 random bytes in hex. */
export const newEndpointId = (): string => `ep_${randomBytes(16).toString("hex")}`;
/** A new event id, the `webhook-id` every attempt of it carries: `msg_` and 16 random bytes in hex. */
export const newEventId = (): string => `msg_${randomBytes(16).toString("hex")}`;
