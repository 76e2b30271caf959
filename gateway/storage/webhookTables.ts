/** Kysely table interfaces of the webhook tables (migration 018), as `schema.ts` keeps the others. */
import type { Generated } from "kysely";

/** `webhook_endpoints`: an app's webhook URL and its sealed signing secret. */
export interface WebhookEndpointsTable {
  id: string;
  app_id: string;
  url: string;
  /** JSON array of event types; `[]`: every event. */
  events: string;
  /** `whsec_…` sealed under SECRETS_KEY, context the endpoint id. */
  secret_sealed: string;
  /** The secret a rotation replaced, sealed like it: it signs beside the new one until `previous_secret_expires_at`. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  status: "enabled" | "disabled";
  disabled_reason: string | null;
  consecutive_failures: number;
  first_failed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** `webhook_events`: the outbox; one row per event, written with the state change that caused it. */
export interface WebhookEventsTable {
  /** Order of recording; a request's events are delivered to each endpoint in this order. */
  seq: Generated<number>;
  /** `msg_…`: the `webhook-id` of every attempt. */
  id: string;
  app_id: string;
  /** The request it is about (none for a test event). */
  tx_id: string | null;
  type: string;
  /** 1 submitted, 2 final: an event is recorded only above every earlier one of its request. */
  rank: number;
  /** The exact bytes every attempt sends. */
  body: string;
  created_at: string;
}

/** `webhook_deliveries`: one event owed to one endpoint. */
export interface WebhookDeliveriesTable {
  id: string;
  event_seq: number;
  endpoint_id: string;
  tx_id: string | null;
  /** `held`: owed to a disabled endpoint, out of the claims' way until it is enabled again. */
  status: "pending" | "held" | "delivered" | "failed";
  /** Attempts since it was queued (or queued again by `webhooks redeliver`): where it stands in the schedule. */
  attempts: number;
  next_attempt_at: string;
  claim_token: string | null;
  claim_expires_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

/** `webhook_attempts`: every attempt made. */
export interface WebhookAttemptsTable {
  seq: Generated<number>;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  at: string;
  outcome: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}
