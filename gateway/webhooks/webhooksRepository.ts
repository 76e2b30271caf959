import type { AttemptResult, ClaimedDelivery, ClaimOptions, DeliveryAttempt, EndpointHealth } from "./webhookDelivery";
import type { NewWebhookEndpoint, WebhookEndpoint } from "./webhookEndpoint";
import type { WebhookOutbox } from "./webhookOutbox";

/** An app already has as many endpoints as it may: nothing was stored. */
export class EndpointLimitError extends Error {
  override readonly name = "EndpointLimitError";
  constructor(readonly limit: number) {
    super(`an app may register at most ${limit} webhook endpoints`);
  }
}

/**
 * Webhook endpoints, the events owed to them and every attempt (issue 21). Events are recorded in the outbox
 * (webhookOutbox.ts): a request's by the transactions repository, in the transaction that changes its state
 * (requestEvents.ts); this repository claims and settles their deliveries. Claims are exclusive across processes and
 * instances: a claimed delivery is not claimed again until its claim ends, and an outcome is recorded only under the
 * claim it was made under.
 */
export interface WebhooksRepository {
  /** Stores a new endpoint, its secret sealed; EndpointLimitError if the app has `maxPerApp` already. */
  addEndpoint(endpoint: NewWebhookEndpoint, maxPerApp: number): Promise<WebhookEndpoint>;
  /** Every endpoint, or one app's, oldest first. */
  listEndpoints(appId?: string): Promise<WebhookEndpoint[]>;
  findEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** Removes an endpoint and what is owed to it; with `appId`, only that app's. Whether one was removed. */
  removeEndpoint(id: string, appId?: string): Promise<boolean>;
  /**
   * Replaces the signing secret (sealed); the old one keeps signing beside it for `keepPreviousMs` (0: it stops at
   * once). Whether the endpoint exists.
   */
  rotateSecret(id: string, secret: string, keepPreviousMs?: number): Promise<boolean>;
  /**
   * Enables an endpoint (its run of failures forgotten, what it is owed due at once) or disables it with a reason.
   * Whether the endpoint exists.
   */
  setStatus(id: string, change: { enabled: true } | { enabled: false; reason: string }): Promise<boolean>;
  /**
   * Runs `work` in one database transaction over the outbox, given the time: what it records is stored together or
   * not at all (test events: testEvents.ts). Request events are recorded by the transactions repository instead, in
   * the transaction of the state change they are (requestEvents.ts).
   */
  withOutbox<T>(work: (outbox: WebhookOutbox, now: Date) => Promise<T>): Promise<T>;
  /**
   * Calls `listener` each time an event recorded through these repositories (this process's) has been committed: its
   * deliveries are due now. Returns what stops it. Events recorded by another process are not told here: the delivery
   * loop's poll finds them.
   */
  onEventRecorded(listener: () => void): () => void;
  /**
   * Claims up to `limit` due deliveries of enabled endpoints for `claimMs` (none of a request whose earlier event is
   * still owed to the same endpoint), or the one delivery `deliveryId` if it is pending and unclaimed.
   */
  claimDue(options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt made under `claim`: the attempt always; the delivery's new state (delivered; pending again at
   * `retryAt`; failed when there is none) only if the claim still holds. Returns the endpoint's run of failures.
   */
  recordAttempt(claim: ClaimedDelivery, result: AttemptResult, retryAt: Date | undefined): Promise<EndpointHealth>;
  /** An endpoint's latest attempts, newest first. */
  attempts(endpointId: string, limit: number): Promise<DeliveryAttempt[]>;
  /** Queues every delivery of an event again, due now, from the start of the schedule; how many. */
  redeliver(eventId: string): Promise<number>;
  /**
   * Seals again under SECRETS_KEY every signing secret sealed under SECRETS_KEY_PREVIOUS (at start-up, so a key
   * rotation does not stop deliveries once the old key is dropped); how many. One that opens under neither is left.
   */
  resealSecrets(): Promise<number>;
  /**
   * Deletes what is done with: deliveries delivered or given up before `before` (their attempts with them), and events
   * recorded before it that nothing is owed for any more. At most `batch` rows a statement; how many deliveries.
   */
  prune(before: Date, batch?: number): Promise<number>;
  /** Deliveries owed (pending) and when the oldest undelivered event happened, for metrics. */
  queue(): Promise<{ pending: number; oldestEventAt: string | undefined }>;
  /** Attempts made, by endpoint and outcome, for metrics. */
  attemptCounts(): Promise<{ endpointId: string; outcome: string; count: number }[]>;
}
