import { NotFoundError } from "../errors/apiError";
import type { WebhooksRepository } from "./webhooksRepository";
import type { WebhookEndpoint } from "./webhookEndpoint";
import type { RegisteredEndpoint } from "./webhookEndpoints";

/** An endpoint as its app is shown it: no secret, no app id, no failure bookkeeping. */
export function endpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    status: endpoint.status,
    disabledReason: endpoint.disabledReason ?? null,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

/** A just-registered endpoint with its secret: the one answer that ever carries the secret. */
export function registeredView({ endpoint, secret }: RegisteredEndpoint) {
  const { id, url, events, status, createdAt } = endpointView(endpoint);
  return { id, url, events, status, secret, createdAt };
}

/** One app's endpoints, oldest first. */
export async function listAppEndpoints(repository: WebhooksRepository, appId: string): Promise<WebhookEndpoint[]> {
  return repository.listEndpoints(appId);
}

/**
 * Removes one of the app's endpoints. Another app's endpoint is NotFoundError like an unknown id, so an app cannot
 * learn which ids exist.
 */
export async function removeAppEndpoint(repository: WebhooksRepository, appId: string, id: string): Promise<void> {
  if (!(await repository.removeEndpoint(id, appId))) throw new NotFoundError("No webhook endpoint with this id");
}
