import { isSafeRecord, type TxRecord } from "../transactions/txRecord";
import { publicView } from "../transactions/txViews";

/**
 * What an app can be told (issue 21): a wallet request (kernel or base, `transaction.*`) or a Safe request (`safe.*`)
 * was handed to the chain, was included, or will never be.
 */
export const WEBHOOK_EVENT_TYPES = [
  "transaction.submitted",
  "transaction.included",
  "transaction.failed",
  "safe.submitted",
  "safe.included",
  "safe.failed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event `webhooks test` sends: to no request, sent to the one endpoint tested whatever it subscribed to. */
export const TEST_EVENT_TYPE = "webhook.test";

/**
 * How far along its lifecycle an event puts a request. An event is recorded only if it moves the request further
 * than every event recorded for it before, so what an app receives never goes backwards: a request retried
 * (submitted, queued again, submitted again) is announced submitted once, and nothing follows a final event.
 */
export type EventRank = 1 | 2;

/** An event about to be recorded: its type, its rank, and the request's public record as its GET shows it now. */
export interface RequestEvent {
  readonly type: WebhookEventType;
  readonly rank: EventRank;
  readonly data: Record<string, unknown>;
}

/** The event a request's new state is, if any (`queued` is none: it is where every request starts and retries). */
export function eventOf(record: TxRecord): RequestEvent | undefined {
  if (record.status === "queued") return undefined;
  const type = `${isSafeRecord(record) ? "safe" : "transaction"}.${record.status}` as WebhookEventType;
  return { type, rank: record.status === "submitted" ? 1 : 2, data: publicView(record) };
}

/**
 * Whether an event of `rank` is news for a request whose recorded events reached `reached` (undefined: none yet): only
 * an event that moves it further is recorded, so a retried request is announced submitted once and nothing follows a
 * final event.
 */
export function movesFurther(rank: EventRank, reached: number | undefined): boolean {
  return reached === undefined || rank > reached;
}

/**
 * The body sent, per Standard Webhooks' payload structure: `type`, `timestamp` (when the event happened) and `data`.
 * It is made once, when the event is recorded, and every attempt sends these same bytes.
 */
export function eventBody(type: string, at: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}
