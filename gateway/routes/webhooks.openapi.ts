import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { EXAMPLE } from "../openapi/examples";
import { JSON_BODY_MEDIA_TYPE, problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { CreatedWebhookResponse, CreateWebhookBody, WebhookIdParams, WebhookListResponse } from "./webhooks.schema";

const TAG: ApiTag = "Webhooks";

const endpoint = {
  id: "ep_bb4c79ec9fa73144d9528f5c0f0e3cfd",
  url: "https://example.com/idwallet-events",
  events: ["transaction.included", "transaction.failed"],
  status: "enabled",
  createdAt: EXAMPLE.time,
};

/** An app's own webhook endpoints (issue 21; the webhooks router) in the OpenAPI document. */
export function registerWebhookPaths(registry: OpenAPIRegistry, bearer: string): void {
  const security = [{ [bearer]: [] }];
  const unauthorized = problem`${"MISSING_TOKEN"}, ${"MALFORMED_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"},
    ${"TOKEN_REVOKED"}, ${"APP_DISABLED"}`;
  const maintenance = problem`${"MAINTENANCE"}`;

  registry.registerPath({
    method: "post",
    path: "/v1/webhooks",
    operationId: "createWebhook",
    tags: [TAG],
    summary: "Register a webhook endpoint for this app",
    description:
      "Events about this app's requests are POSTed to `url`, signed per Standard Webhooks with the secret in the " +
      "answer (shown only here). The URL must be https to a public address: loopback, private, link-local and " +
      "reserved addresses are refused unless the operator allows them (WEBHOOK_ALLOW_LOOPBACK, WEBHOOK_ALLOW_PRIVATE).",
    security,
    request: {
      body: {
        required: true,
        content: {
          "application/json": { schema: CreateWebhookBody, example: { url: endpoint.url, events: endpoint.events } },
        },
      },
    },
    responses: {
      201: {
        description: "Registered (Location: /v1/webhooks/{id})",
        content: {
          "application/json": {
            schema: CreatedWebhookResponse,
            example: { ...endpoint, secret: "whsec_iMPT38WJ+EDtklSgB8bX/VTgvmbYsHRv4dbM4WygK3g=" },
          },
        },
      },
      400: problem`${"INVALID_REQUEST"} (unknown fields or event types), ${"WEBHOOK_URL_NOT_ALLOWED"}
        (\`errors\` says why)`,
      401: unauthorized,
      409: problem`${"WEBHOOK_LIMIT_REACHED"}: the app has WEBHOOK_MAX_ENDPOINTS_PER_APP endpoints (\`limit\`)`,
      413: problem`${"PAYLOAD_TOO_LARGE"}`,
      415: JSON_BODY_MEDIA_TYPE,
      503: problem`${"MAINTENANCE"}, ${"WEBHOOKS_NOT_CONFIGURED"} (no SECRETS_KEY to seal the secret with)`,
    },
  });
  registry.registerPath({
    method: "get",
    path: "/v1/webhooks",
    operationId: "listWebhooks",
    tags: [TAG],
    summary: "This app's webhook endpoints",
    security,
    responses: {
      200: {
        description: "Oldest first; no secrets",
        content: {
          "application/json": {
            schema: WebhookListResponse,
            example: { endpoints: [{ ...endpoint, disabledReason: null, updatedAt: EXAMPLE.time }] },
          },
        },
      },
      401: unauthorized,
      503: maintenance,
    },
  });
  registry.registerPath({
    method: "delete",
    path: "/v1/webhooks/{id}",
    operationId: "deleteWebhook",
    tags: [TAG],
    summary: "Remove one of this app's webhook endpoints",
    description: "Deliveries still owed to it are dropped; one already being attempted may still arrive.",
    security,
    request: { params: WebhookIdParams },
    responses: {
      204: { description: "Removed" },
      400: problem`${"INVALID_REQUEST"}`,
      401: unauthorized,
      404: problem`${"NOT_FOUND"}: no endpoint of this app has this id`,
      503: maintenance,
    },
  });
}
