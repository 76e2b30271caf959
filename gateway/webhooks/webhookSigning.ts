import { Webhook } from "standardwebhooks";

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the event's, the same on every attempt, so receivers
 * deduplicate), `webhook-timestamp` (the attempt's, seconds; receivers refuse stale ones against replay) and
 * `webhook-signature` (`v1,` base64 HMAC-SHA256 of `id.timestamp.body` under each of `secrets`, space-separated as
 * the specification allows, so during a rotation a receiver holding either secret verifies), made by the
 * `standardwebhooks` library rather than by hand.
 */
export function signedHeaders(
  secrets: readonly string[],
  eventId: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(" "),
  };
}
