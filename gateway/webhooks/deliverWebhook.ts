import type { Logger } from "pino";
import type { WebhookSettings } from "../config/webhookSettings";
import type { WebhooksRepository } from "./webhooksRepository";
import { disableReason, nextAttemptAt } from "./retrySchedule";
import type { ClaimedDelivery } from "./webhookDelivery";
import { postWebhook, type WebhookResponse } from "./webhookPost";
import { signedHeaders } from "./webhookSigning";

/** What one attempt needs: where deliveries are kept, the settings, the time, and a log. */
export interface DeliveryDeps {
  readonly repository: WebhooksRepository;
  readonly settings: WebhookSettings;
  readonly clock: () => Date;
  readonly logger: Logger;
  /** How an attempt is sent (default: postWebhook, which refuses addresses the settings do not allow). */
  readonly post?: typeof postWebhook;
}

/**
 * Makes one attempt of a claimed delivery: signs it (Standard Webhooks), posts it, and records the outcome under the
 * claim: delivered, due again per the retry schedule, or given up once the schedule is spent. An endpoint whose run
 * of failures has lasted long enough is disabled until the operator enables it again.
 */
export async function deliverWebhook(deps: DeliveryDeps, claim: ClaimedDelivery): Promise<WebhookResponse> {
  const { settings, repository } = deps;
  const at = deps.clock();
  const secrets = claim.previousSecret === undefined ? [claim.secret] : [claim.secret, claim.previousSecret];
  const headers = signedHeaders(secrets, claim.eventId, claim.body, at);
  const response = await (deps.post ?? postWebhook)(claim.url, headers, claim.body, {
    timeoutMs: settings.timeoutMs,
    rules: { allowLoopback: settings.allowLoopback, allowPrivate: settings.allowPrivate },
    dnsServers: settings.dnsServers,
  });
  const done = deps.clock();
  const delivered = response.outcome === "delivered";
  const retryAt = delivered ? undefined : nextAttemptAt(settings.retrySeconds, claim.attemptsBefore + 1, done);
  const health = await repository.recordAttempt(claim, { ...response, at }, retryAt);
  if (delivered) return response;
  const log = { endpointId: claim.endpointId, eventId: claim.eventId, outcome: response.outcome };
  if (retryAt === undefined) deps.logger.warn(log, "webhook delivery given up: every attempt of its schedule failed");
  const reason = disableReason(health, settings, done);
  if (reason !== undefined) {
    await repository.setStatus(claim.endpointId, { enabled: false, reason });
    deps.logger.warn({ ...log, reason }, "webhook endpoint disabled after a run of failures");
  }
  return response;
}
