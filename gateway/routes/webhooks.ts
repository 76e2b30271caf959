import { type Response, Router } from "express";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import type { WebhookSettings } from "../config/webhookSettings";
import { bearerAuth, principalOf, type AdmitApp } from "../http/bearer";
import { jsonBody } from "../http/jsonBody";
import type { WebhooksRepository } from "../webhooks/webhooksRepository";
import { endpointView, listAppEndpoints, registeredView, removeAppEndpoint } from "../webhooks/appEndpoints";
import { registerEndpoint } from "../webhooks/webhookEndpoints";
import { CreateWebhookBody, WebhookIdParams } from "./webhooks.schema";

/**
 * POST, GET /v1/webhooks and DELETE /v1/webhooks/{id} (issue 21): an app registers, lists and removes its own webhook
 * endpoints with its bearer token; it never sees or touches another app's.
 */
export function webhooksRouter(deps: {
  tokens: AppTokens;
  admitApp: AdmitApp;
  bodyLimit: string;
  webhooks: { repository: WebhooksRepository; settings: WebhookSettings };
}): Router {
  const router = Router();
  const auth = bearerAuth(deps.tokens, true, deps.admitApp);
  const json = jsonBody({ limit: deps.bodyLimit });
  const appId = (res: Response) => (principalOf(res) as AppPrincipal).appId;
  const { repository, settings } = deps.webhooks;

  router.post("/v1/webhooks", auth, ...json, async (req, res) => {
    const body = CreateWebhookBody.parse(req.body);
    const registered = await registerEndpoint(repository, settings, {
      appId: appId(res),
      url: body.url,
      events: body.events ?? [],
    });
    res.status(201).location(`/v1/webhooks/${registered.endpoint.id}`).json(registeredView(registered));
  });

  router.get("/v1/webhooks", auth, async (_req, res) => {
    res.json({ endpoints: (await listAppEndpoints(repository, appId(res))).map(endpointView) });
  });

  router.delete("/v1/webhooks/:id", auth, async (req, res) => {
    await removeAppEndpoint(repository, appId(res), WebhookIdParams.parse(req.params).id);
    res.status(204).end();
  });
  return router;
}
