import pino from "pino";
import type { WebhookSettings } from "../../gateway/config/webhookSettings";
import type { WebhooksRepository } from "../../gateway/webhooks/webhooksRepository";
import { deliverWebhook } from "../../gateway/webhooks/deliverWebhook";
import { claimMsOf } from "../../gateway/webhooks/deliveryWorker";
import type { WebhookEndpoint } from "../../gateway/webhooks/webhookEndpoint";
import { recordTestEvent } from "../../gateway/webhooks/testEvents";
import type { WebhookResponse } from "../../gateway/webhooks/webhookPost";

/** Where `webhooks test` writes: the outcome on `out` when delivered, on `err` when not. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** One attempt's outcome in words: the HTTP status or the error, and the time it took. */
function describe(response: WebhookResponse): string {
  const status = response.statusCode === undefined ? undefined : `HTTP ${response.statusCode}`;
  const parts = [response.outcome === "delivered" ? undefined : response.outcome, status, response.error];
  return `${parts.filter((part) => part !== undefined).join(", ")} in ${response.durationMs} ms`;
}

/**
 * `webhooks test`: records a `webhook.test` event owed to the endpoint alone, claims exactly that delivery and makes its
 * attempt now with the service's own deliverWebhook, so it is signed, recorded and retried like any other. Resolves
 * whether it was delivered; true too when a running service claimed it first (its attempt is then the service's).
 */
export async function sendTestEvent(
  webhooks: WebhooksRepository,
  settings: WebhookSettings,
  endpoint: WebhookEndpoint,
  output: Output,
  clock: () => Date,
): Promise<boolean> {
  const { eventId, deliveryId } = await recordTestEvent(webhooks, endpoint.id);
  const [claim] = await webhooks.claimDue({ limit: 1, claimMs: claimMsOf(settings), deliveryId });
  if (claim === undefined) {
    output.out(
      `Recorded test event ${eventId}; a running service claimed its delivery first: see its outcome with ` +
        `webhooks deliveries ${endpoint.id}`,
    );
    return true;
  }
  // deliverWebhook's warnings (given up, endpoint disabled) are told below in words instead of as log lines.
  const logger = pino({ level: "silent" });
  const response = await deliverWebhook({ repository: webhooks, settings, clock, logger }, claim);
  if (response.outcome === "delivered") {
    output.out(`Test event ${eventId} delivered to ${claim.url}: ${describe(response)}`);
    return true;
  }
  output.err(
    `Test event ${eventId} not delivered to ${claim.url}: ${describe(response)}\n` +
      `It stays owed and is retried on the service's schedule: see webhooks deliveries ${endpoint.id}`,
  );
  const now = await webhooks.findEndpoint(endpoint.id);
  if (now?.status === "disabled") output.err(`The endpoint is now disabled: ${now.disabledReason ?? "no reason"}`);
  return false;
}
