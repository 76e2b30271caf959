import type { DeliveryStatus } from "./webhookDelivery";
import type { EndpointSubscription } from "./webhookSubscriptions";

/** An event as the outbox keeps it: the exact bytes every attempt sends, and what it is about. */
export interface OutboxEvent {
  /** `msg_…`: the `webhook-id` of every attempt. */
  readonly id: string;
  readonly appId: string;
  /** The request it is about; undefined for a test event. */
  readonly txId: string | undefined;
  readonly type: string;
  /** How far along its request's lifecycle it is (webhookEvents.ts: EventRank); 0 for a test event. */
  readonly rank: number;
  readonly body: string;
  /** When it happened: its deliveries are due from then. */
  readonly at: Date;
}

/** The event owed to one endpoint. */
export interface OutboxDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly status: Extract<DeliveryStatus, "pending" | "held">;
}

/** An event and what it owes each endpoint it goes to, recorded together. */
export interface OutboxEntry {
  readonly event: OutboxEvent;
  readonly deliveries: readonly OutboxDelivery[];
}

/**
 * The outbox (issue 21) inside one database transaction: what the webhook rules read there and the entry they decide
 * to record, stored with the rest of the transaction (a state change, for a request's event) or not at all.
 */
export interface WebhookOutbox {
  /** The app's endpoints; on PostgreSQL none of them can be removed before the transaction ends. */
  subscriptions(appId: string): Promise<EndpointSubscription[]>;
  /** One endpoint, or undefined if there is none with this id. */
  subscription(endpointId: string): Promise<EndpointSubscription | undefined>;
  /** The highest rank among the events recorded for request `txId`; undefined while none is. */
  reachedRank(txId: string): Promise<number | undefined>;
  /** Stores the event and its deliveries, each due at the event's time, with no attempt made yet. */
  record(entry: OutboxEntry): Promise<void>;
}
