import { SecretsKeyError } from "../crypto/secretsKeyring";
import { ApiError, InvalidRequestError } from "../errors/apiError";
import type { WebhookSettings } from "../config/webhookSettings";
import { EndpointLimitError, type WebhooksRepository } from "./webhooksRepository";
import { newWebhookSecret, type WebhookEndpoint } from "./webhookEndpoint";
import type { WebhookEventType } from "./webhookEvents";
import { checkWebhookUrl } from "./webhookTarget";

/** 400: a URL the service will not post to (not https, a private or loopback address, credentials in it, …). */
export class WebhookUrlNotAllowedError extends InvalidRequestError {
  constructor(reason: string) {
    super(
      `The webhook URL is not allowed: ${reason}`,
      [{ pointer: "/url", detail: reason }],
      "WEBHOOK_URL_NOT_ALLOWED",
    );
  }
}

/** 409: the app has as many endpoints as it may. */
export class WebhookLimitReachedError extends ApiError {
  constructor(limit: number) {
    super(409, "WEBHOOK_LIMIT_REACHED", "Too many webhook endpoints", `An app may register at most ${limit}`, {
      limit,
    });
  }
}

/** 503: webhook secrets are sealed under SECRETS_KEY, and this deployment has none. */
export class WebhooksNotConfiguredError extends ApiError {
  constructor() {
    super(503, "WEBHOOKS_NOT_CONFIGURED", "Webhooks not configured", "This deployment has no SECRETS_KEY");
  }
}

/** A registered endpoint and its signing secret, which is shown this once. */
export interface RegisteredEndpoint {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
}

/**
 * Registers an endpoint for an app: its URL checked against the settings' rules (refused: WebhookUrlNotAllowedError),
 * a new secret made and stored sealed (none to seal with: WebhooksNotConfiguredError), at most
 * `maxEndpointsPerApp` (WebhookLimitReachedError). `events` empty: every event.
 */
export async function registerEndpoint(
  repository: WebhooksRepository,
  settings: WebhookSettings,
  request: { appId: string; url: string; events: readonly WebhookEventType[] },
): Promise<RegisteredEndpoint> {
  const checked = checkWebhookUrl(request.url, settings);
  if (!checked.ok) throw new WebhookUrlNotAllowedError(checked.reason);
  const secret = newWebhookSecret();
  try {
    const endpoint = await repository.addEndpoint(
      { appId: request.appId, url: checked.url.href, events: [...new Set(request.events)], secret },
      settings.maxEndpointsPerApp,
    );
    return { endpoint, secret };
  } catch (error) {
    if (error instanceof EndpointLimitError) throw new WebhookLimitReachedError(error.limit);
    if (error instanceof SecretsKeyError) throw new WebhooksNotConfiguredError();
    throw error;
  }
}

/**
 * A new secret for an endpoint, stored sealed; returned this once (undefined: no such endpoint). The old one signs
 * beside it for `keepPreviousSeconds` (every attempt carries both signatures), so the app can switch its receiver over
 * without refusing a delivery; 0 stops it at once (a leaked secret).
 */
export async function rotateEndpointSecret(
  repository: WebhooksRepository,
  endpointId: string,
  keepPreviousSeconds: number,
) {
  const secret = newWebhookSecret();
  return (await repository.rotateSecret(endpointId, secret, keepPreviousSeconds * 1000)) ? secret : undefined;
}
