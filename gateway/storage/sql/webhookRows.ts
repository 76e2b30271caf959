import type { Selectable } from "kysely";
import { SecretsKeyError, type SecretsKeyring } from "../../crypto/secretsKeyring";
import type { AttemptOutcome, DeliveryAttempt, DeliveryStatus } from "../../webhooks/webhookDelivery";
import type { WebhookEndpoint } from "../../webhooks/webhookEndpoint";
import type { WebhookAttemptsTable, WebhookEndpointsTable } from "../webhookTables";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../../webhooks/webhookEvents";
import { z } from "zod";

/** The event types an endpoint row subscribes to (stored as a JSON array; `[]`: all). */
const StoredEventTypes = z.array(z.enum(WEBHOOK_EVENT_TYPES));
/** An endpoint row's event types, each one this version knows (else it throws: the row is not one it wrote). */
const parseEventTypes = (text: string): WebhookEventType[] => StoredEventTypes.parse(JSON.parse(text));

/**
 * An endpoint row's event types as the outbox reads them, forgiving, for the transaction workers' path: every stored
 * type, known here or not (a row written by a newer version), for the webhook rules to judge, rather than failing the
 * state change the event rides with. Anything but a list (never written) is kept as one type no event has.
 */
export function storedEventTypes(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.map(String) : [text];
}

/** What an endpoint's secret is sealed for: its row, so a sealed value moved to another endpoint does not open. */
const sealContext = (endpointId: string): string => `webhook_endpoints:${endpointId}`;

/** Seals an endpoint's signing secret; SecretsKeyError without SECRETS_KEY (webhooks need one). */
export function sealEndpointSecret(keyring: SecretsKeyring | undefined, endpointId: string, secret: string): string {
  if (!keyring) throw new SecretsKeyError("webhook signing secrets are sealed under SECRETS_KEY, which is not set");
  return keyring.seal(secret, sealContext(endpointId));
}

/** Opens an endpoint's signing secret; SecretsKeyError if it cannot. */
export function openEndpointSecret(keyring: SecretsKeyring | undefined, endpointId: string, sealed: string): string {
  if (!keyring) throw new SecretsKeyError("webhook signing secrets are sealed under SECRETS_KEY, which is not set");
  return keyring.open(sealed, sealContext(endpointId));
}

/** An endpoint row as the domain sees it (no secret). */
export function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    appId: row.app_id,
    url: row.url,
    events: parseEventTypes(row.events),
    status: row.status,
    disabledReason: row.disabled_reason ?? undefined,
    consecutiveFailures: Number(row.consecutive_failures),
    failingSince: row.first_failed_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** An attempt row, with its event's type and its delivery's state. */
export function toAttempt(
  row: Selectable<WebhookAttemptsTable> & { event_type: string; delivery_status: string },
): DeliveryAttempt {
  return {
    eventId: row.event_id,
    eventType: row.event_type,
    deliveryId: row.delivery_id,
    attempt: Number(row.attempt),
    at: row.at,
    outcome: row.outcome as AttemptOutcome,
    statusCode: row.status_code ?? undefined,
    error: row.error ?? undefined,
    durationMs: Number(row.duration_ms),
    deliveryStatus: row.delivery_status as DeliveryStatus,
  };
}
