import type { EndpointStatus } from "./webhookEndpoint";
import type { DeliveryStatus } from "./webhookDelivery";

/**
 * An endpoint as an event is addressed to it: whose it is, the event types it asked for as they are stored (a newer
 * version may have stored types this one does not know), and whether it is enabled.
 */
export interface EndpointSubscription {
  readonly id: string;
  readonly appId: string;
  /** The types it asked for; empty: every event. */
  readonly events: readonly string[];
  readonly status: EndpointStatus;
}

/**
 * Whether an endpoint is sent an event of `type`: every event when it asked for none in particular, else only the
 * types it asked for. A stored type this version does not know matches nothing (an endpoint that asked only for such
 * types receives nothing, not everything), so an unknown type never fails the state change the event rides with.
 */
export function receives(endpoint: EndpointSubscription, type: string): boolean {
  return endpoint.events.length === 0 || endpoint.events.includes(type);
}

/**
 * How a new delivery to an endpoint starts: pending, due at once; held, out of the claims' way, while the endpoint is
 * disabled (enabling it makes what it is owed pending again).
 */
export function newDeliveryStatus(endpoint: EndpointSubscription): Extract<DeliveryStatus, "pending" | "held"> {
  return endpoint.status === "enabled" ? "pending" : "held";
}
