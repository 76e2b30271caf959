import { Webhook } from "standardwebhooks";
import type { components } from "../generated/openapi.js";

/** Any event the service delivers (the `webhooks` of its OpenAPI document), narrowed by its `type`. */
export type WebhookEvent = components["schemas"]["WebhookEvent"];

/** Headers as a fetch `Headers` or a Node `IncomingHttpHeaders`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Thrown when a delivery's signature, timestamp or id does not hold: the body must not be trusted. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

const SIGNED_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

function headerValue(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? "";
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(" ") : ((value as string | undefined) ?? "");
}

/**
 * Checks a delivery per Standard Webhooks (HMAC-SHA256 over id, timestamp and the raw body; timestamps within five
 * minutes) with the endpoint's `whsec_…` secret, and answers its event. Pass the body exactly as received, not
 * re-serialized JSON. It keeps no state: a delivery replayed within the five minutes verifies again, as does each
 * retry (same `webhook-id`, new timestamp); the receiver drops the ids it has already handled.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const signed = Object.fromEntries(SIGNED_HEADERS.map((name) => [name, headerValue(headers, name)]));
  const raw = typeof body === "string" ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(raw, signed) as WebhookEvent;
  } catch (error) {
    throw new WebhookVerificationError((error as Error).message);
  }
}
