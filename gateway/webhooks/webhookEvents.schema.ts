import { z } from "zod";
import { SafeTxStatusResponse, TxStatusResponse } from "../transactions/txViews.schema";
import { TEST_EVENT_TYPE, type WebhookEventType } from "./webhookEvents";

/** The state a request event announces (`queued` is none: eventOf). */
type AnnouncedStatus = "submitted" | "included" | "failed";

/** `timestamp`: when the event happened (ISO 8601, UTC), the same on every attempt. */
const Timestamp = z.iso
  .datetime()
  .meta({ description: "When the event happened", example: "2026-11-22T12:00:14.000Z" });

/**
 * The body of a wallet request's event as delivered: `type` a literal, `data` the request's public record (its GET's
 * body), whose `status` is the state the event announces (an event is the state the request has just reached).
 */
const transactionEvent = <Status extends AnnouncedStatus>(status: Status, id: string) =>
  z
    .object({
      type: z.literal(`transaction.${status}` as const),
      timestamp: Timestamp,
      data: z.intersection(TxStatusResponse, z.object({ status: z.literal(status) })),
    })
    .meta({ id });

/** The same for a Safe request's event. */
const safeEvent = <Status extends AnnouncedStatus>(status: Status, id: string) =>
  z
    .object({
      type: z.literal(`safe.${status}` as const),
      timestamp: Timestamp,
      data: z.intersection(SafeTxStatusResponse, z.object({ status: z.literal(status) })),
    })
    .meta({ id });

/** The body of a `webhook.test` event: to no request; what it is and which endpoint it was sent to. */
const TestEvent = z
  .object({
    type: z.literal(TEST_EVENT_TYPE),
    timestamp: Timestamp,
    data: z.object({
      endpointId: z.string().meta({ description: "The endpoint tested" }),
      eventId: z.string().meta({ description: "This event's id, as `webhook-id` carries it" }),
      message: z.string(),
    }),
  })
  .meta({ id: "WebhookTestEvent" });

/**
 * The body of each event type the service delivers, by type, as built by eventBody (Standard Webhooks' payload
 * structure: `type`, `timestamp`, `data`).
 */
export const WEBHOOK_EVENT_BODIES = {
  "transaction.submitted": transactionEvent("submitted", "TransactionSubmittedEvent"),
  "transaction.included": transactionEvent("included", "TransactionIncludedEvent"),
  "transaction.failed": transactionEvent("failed", "TransactionFailedEvent"),
  "safe.submitted": safeEvent("submitted", "SafeSubmittedEvent"),
  "safe.included": safeEvent("included", "SafeIncludedEvent"),
  "safe.failed": safeEvent("failed", "SafeFailedEvent"),
  [TEST_EVENT_TYPE]: TestEvent,
} as const satisfies Record<WebhookEventType | typeof TEST_EVENT_TYPE, z.ZodType>;

/** Any event body the service delivers, told apart by its `type`. */
export const WebhookEventBody = z
  .discriminatedUnion("type", [
    WEBHOOK_EVENT_BODIES["transaction.submitted"],
    WEBHOOK_EVENT_BODIES["transaction.included"],
    WEBHOOK_EVENT_BODIES["transaction.failed"],
    WEBHOOK_EVENT_BODIES["safe.submitted"],
    WEBHOOK_EVENT_BODIES["safe.included"],
    WEBHOOK_EVENT_BODIES["safe.failed"],
    TestEvent,
  ])
  .meta({ id: "WebhookEvent" });

/** An event body as a receiver reads it. */
export type WebhookEventBody = z.infer<typeof WebhookEventBody>;

/**
 * The Standard Webhooks headers of an attempt, as signedHeaders makes them: the event's id, the attempt's time and
 * its signatures (`v1,` base64 HMAC-SHA256 of `id.timestamp.body`; two, space-separated, while a secret is rotated).
 */
export const SignedHeaders = z.object({
  "webhook-id": z
    .string()
    .regex(/^msg_[0-9a-f]{32}$/)
    .meta({
      description: "The event's id, the same on every attempt: deduplicate on it",
      example: "msg_4f0c3a9be2d14c7f8a6b5e1d0c9f2a3b",
    }),
  // A header is text; its value is a whole number of seconds, documented as one.
  "webhook-timestamp": z.string().regex(/^\d+$/).meta({
    type: "integer",
    description: "This attempt's time, Unix seconds: refuse one far from now (a replay)",
    example: 1795000000,
  }),
  "webhook-signature": z
    .string()
    .regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/)
    .meta({
      description:
        "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's " +
        "secret; during a secret's rotation, one per secret, space-separated",
      example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
    }),
});
