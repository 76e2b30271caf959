import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "../webhooks/webhookEvents";

/** The longest URL an endpoint may have (the URL rules refuse a longer one too). */
const MAX_URL_LENGTH = 2048;

/** An event type an endpoint may subscribe to. */
const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

/** POST /v1/webhooks body; unknown fields are refused, not ignored, so a misspelt `events` is not "every event". */
export const CreateWebhookBody = z
  .strictObject({
    url: z.string().max(MAX_URL_LENGTH).meta({
      description:
        "Where events are POSTed: https, a public host (no credentials, no fragment); checked again at each delivery",
      example: "https://example.com/idwallet-events",
    }),
    events: z
      .array(WebhookEventType)
      .max(WEBHOOK_EVENT_TYPES.length)
      .refine((events) => new Set(events).size === events.length, "each event type at most once")
      .optional()
      .meta({ description: "The event types sent to it; omitted or empty: every event", uniqueItems: true }),
  })
  .meta({ id: "CreateWebhookRequest" });

/** DELETE /v1/webhooks/{id} path. */
export const WebhookIdParams = z.object({
  id: z.string().min(1).max(100).meta({ example: "ep_5b1f0c9e2d7a4c3b8e6f1a2d3c4b5a69" }),
});

const endpointFields = {
  id: z.string().meta({ example: "ep_5b1f0c9e2d7a4c3b8e6f1a2d3c4b5a69" }),
  url: z.string(),
  events: z.array(WebhookEventType).meta({ description: "Empty: every event" }),
  status: z.enum(["enabled", "disabled"]).meta({
    description: "disabled: sent nothing, after a run of failed deliveries or by the operator, until re-enabled",
  }),
  createdAt: z.string(),
};

/** A registered endpoint with its signing secret: the answer to POST /v1/webhooks, the one time the secret is shown. */
export const CreatedWebhookResponse = z
  .object({
    ...endpointFields,
    secret: z.string().meta({
      description:
        "The Standard Webhooks signing secret (`whsec_…`) for verifying `webhook-signature`; shown only in this answer",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
  })
  .meta({ id: "CreatedWebhook" });

/** One of the app's endpoints, as GET /v1/webhooks lists it (never its secret). */
export const WebhookEndpointResponse = z
  .object({
    ...endpointFields,
    disabledReason: z.string().nullable().meta({ description: "Why it is disabled, while it is" }),
    updatedAt: z.string(),
  })
  .meta({ id: "WebhookEndpoint" });

/** GET /v1/webhooks answer. */
export const WebhookListResponse = z
  .object({ endpoints: z.array(WebhookEndpointResponse).meta({ description: "Oldest first" }) })
  .meta({ id: "WebhookList" });

/** What an app is told of one of its endpoints. */
export type WebhookEndpointView = z.infer<typeof WebhookEndpointResponse>;
