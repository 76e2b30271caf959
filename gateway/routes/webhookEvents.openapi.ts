import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { EXAMPLE } from "../openapi/examples";
import type { ApiTag } from "../openapi/tags";
import { SignedHeaders, WEBHOOK_EVENT_BODIES } from "../webhooks/webhookEvents.schema";

const TAG: ApiTag = "Webhooks";

const wallet = {
  id: "ea79f62a-4352-4ec0-9186-d67878176f8f",
  userId: EXAMPLE.userId,
  chain: "localhost",
  sender: EXAMPLE.wallet,
  userOpHash: EXAMPLE.userOpHash,
  createdAt: EXAMPLE.time,
  updatedAt: EXAMPLE.later,
};
const safe = {
  txUuid: "0c1e5d2a-7b3f-4e9a-8c6d-2f1b0a9e8d7c",
  action: "transfer",
  chain: "localhost",
  safe: EXAMPLE.safe,
  safeTxHash: EXAMPLE.userOpHash,
  createdAt: EXAMPLE.time,
  updatedAt: EXAMPLE.later,
};
const onChain = { transactionHash: EXAMPLE.txHash, blockNumber: 1842 };
const pending = { transactionHash: null, blockNumber: null };
const failure = { code: "RESERVATION_EXCEEDED", message: "its gas limits could cost more than it reserved" };

/** An example `data` of each event type. */
const DATA: Record<keyof typeof WEBHOOK_EVENT_BODIES, object> = {
  "transaction.submitted": { ...wallet, status: "submitted", ...pending, success: null, error: null },
  "transaction.included": { ...wallet, status: "included", ...onChain, success: true, error: null },
  "transaction.failed": { ...wallet, status: "failed", ...pending, success: null, error: failure },
  "safe.submitted": { ...safe, status: "submitted", ...pending, error: null },
  "safe.included": { ...safe, status: "included", ...onChain, error: null },
  "safe.failed": { ...safe, status: "failed", ...pending, error: failure },
  "webhook.test": {
    endpointId: "ep_bb4c79ec9fa73144d9528f5c0f0e3cfd",
    eventId: "msg_4f0c3a9be2d14c7f8a6b5e1d0c9f2a3b",
    message: "A test event from idwallet",
  },
};

/**
 * What the service POSTs to an app's webhook endpoints (OpenAPI 3.1 `webhooks`, docs/webhooks.md): one entry per
 * event type, its body as delivered and the Standard Webhooks headers that sign it; `WebhookEvent` is any of them.
 */
export function registerWebhookEvents(registry: OpenAPIRegistry): void {
  const refs: Record<string, string> = {};
  for (const [type, schema] of Object.entries(WEBHOOK_EVENT_BODIES)) {
    const name = schema.meta()!.id!;
    refs[type] = `#/components/schemas/${name}`;
    registry.registerWebhook({
      method: "post",
      path: type,
      operationId: `receive${name}`,
      tags: [TAG],
      // Signed, not authenticated by a scheme: the receiver verifies the signature headers.
      security: [{}],
      summary: `The ${type} event, POSTed to each endpoint that takes it`,
      description:
        "Verify `webhook-signature` over the raw body (any Standard Webhooks library), deduplicate on `webhook-id` " +
        "(delivery is at least once) and answer 2xx quickly.",
      request: {
        headers: SignedHeaders,
        body: {
          required: true,
          content: {
            "application/json": {
              schema,
              example: { type, timestamp: EXAMPLE.later, data: DATA[type as keyof typeof DATA] },
            },
          },
        },
      },
      responses: {
        "2XX": {
          description:
            "Delivered. Any other answer, a redirect (never followed), an error or no answer within " +
            "WEBHOOK_TIMEOUT_MS fails the attempt, and it is retried on the schedule",
        },
      },
    });
  }
  // Any of them, told apart by `type`: what a receiver's verifier returns.
  registry.registerComponent("schemas", "WebhookEvent", {
    oneOf: Object.values(refs).map(($ref) => ({ $ref })),
    discriminator: { propertyName: "type", mapping: refs },
  });
}
