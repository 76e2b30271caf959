import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import type { WebhookSettings } from "../../gateway/config/webhookSettings";
import type { WebhooksRepository } from "../../gateway/webhooks/webhooksRepository";
import { deliverWebhook } from "../../gateway/webhooks/deliverWebhook";
import { claimMsOf } from "../../gateway/webhooks/deliveryWorker";
import type { DeliveryAttempt } from "../../gateway/webhooks/webhookDelivery";
import type { WebhookEndpoint } from "../../gateway/webhooks/webhookEndpoint";
import { recordTestEvent } from "../../gateway/webhooks/testEvents";
import type { WebhookResponse } from "../../gateway/webhooks/webhookPost";

/** Where `webhooks test` writes: the outcome on `out` when delivered, on `err` when not. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** One attempt's outcome in words: the HTTP status or the error, and the time it took. */
function describe(response: Pick<WebhookResponse, "outcome" | "statusCode" | "error" | "durationMs">): string {
  const status = response.statusCode === undefined ? undefined : `HTTP ${response.statusCode}`;
  const parts = [response.outcome === "delivered" ? undefined : response.outcome, status, response.error];
  return `${parts.filter((part) => part !== undefined).join(", ")} in ${response.durationMs} ms`;
}

/** How often `webhooks test` looks for the running service's attempt at a delivery it claimed first. */
const SERVICE_POLL_MS = 200;
/** How long past one attempt's limit (WEBHOOK_TIMEOUT_MS) it looks before saying the event is queued. */
const SERVICE_GRACE_MS = 5000;

/**
 * The attempt the running service made at `deliveryId`, waiting for it up to one attempt's limit and a grace: the
 * service claimed the delivery, so its outcome is what happened to the test event.
 */
async function serviceAttempt(
  webhooks: WebhooksRepository,
  settings: WebhookSettings,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryAttempt | undefined> {
  const deadline = Date.now() + settings.timeoutMs + SERVICE_GRACE_MS;
  for (;;) {
    const attempt = (await webhooks.attempts(endpointId, 50)).find((a) => a.deliveryId === deliveryId);
    if (attempt !== undefined || Date.now() >= deadline) return attempt;
    await sleep(SERVICE_POLL_MS);
  }
}

/**
 * `webhooks test`: records a `webhook.test` event owed to the endpoint alone, claims exactly that delivery and makes its
 * attempt now with the service's own deliverWebhook and the service's settings, so it is signed, recorded and retried
 * like any other. When a running service claimed it first (its delivery loop polls too), the service's attempt is
 * awaited and reported as the service's; with none in time the event is reported queued. Resolves whether it was
 * delivered, or is queued for the service; false when an attempt failed (the CLI exits 1).
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
    const attempt = await serviceAttempt(webhooks, settings, endpoint.id, deliveryId);
    if (attempt === undefined) {
      output.out(
        `Test event ${eventId} queued; the running service delivers it: see webhooks deliveries ${endpoint.id}`,
      );
      return true;
    }
    const told = describe(attempt);
    if (attempt.outcome === "delivered") {
      output.out(`Test event ${eventId} delivered to ${endpoint.url} by the running service: ${told}`);
      return true;
    }
    output.err(
      `Test event ${eventId} not delivered to ${endpoint.url} by the running service: ${told}\n` +
        `It is retried on the service's schedule: see webhooks deliveries ${endpoint.id}`,
    );
    return false;
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
