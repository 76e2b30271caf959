import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import {
  eventBody,
  eventOf,
  subscribes,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "../../webhooks/webhookEvents";
import { newEventId } from "../../webhooks/webhookEndpoint";
import type { DatabaseSchema } from "../schema";
import { toRecord } from "./transactionRows";
import { isPostgres } from "../migrations/dialect";
import { z } from "zod";

/** The event types an endpoint row subscribes to (stored as a JSON array; `[]`: all). */
export const StoredEventTypes = z.array(z.enum(WEBHOOK_EVENT_TYPES));
export const parseEventTypes = (text: string): WebhookEventType[] => StoredEventTypes.parse(JSON.parse(text));

/**
 * The same, forgiving, for the transaction workers' path: a type this version does not know (a row written by a
 * newer one) is skipped rather than failing the state change it rides with.
 */
const knownEventTypes = (text: string): WebhookEventType[] => {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed)
    ? parsed.filter((type): type is WebhookEventType => WEBHOOK_EVENT_TYPES.includes(type))
    : [];
};

/**
 * The outbox (issue 21): in the transaction that has just changed request `txId`'s state, records the event that state
 * is and what it owes each of the app's endpoints subscribed to it, so an event is never lost to a crash between
 * the change and its delivery, nor sent for a change that was rolled back. Nothing is recorded for a state that is no
 * event (`queued`), for an app with no endpoint taking it, or for an event that would not move the request further
 * than one already recorded for it (a second `submitted` after a retry; anything after a final event).
 */
export async function recordRequestEvent(trx: Transaction<DatabaseSchema>, txId: string, now: Date): Promise<void> {
  // The request's app's endpoints first, in one look-up: with none (most apps), the state change costs nothing more.
  // PostgreSQL: `for key share` keeps an endpoint from being deleted before its delivery is inserted (the insert would
  // fail its foreign key, and with it the worker's write), while leaving its other columns free to change.
  const all = await trx
    .selectFrom("webhook_endpoints as e")
    .innerJoin("transactions as t", "t.app_id", "e.app_id")
    .select(["e.id", "e.events", "e.status"])
    .where("t.id", "=", txId)
    .$if(isPostgres(trx), (q) => q.forKeyShare("e"))
    .execute();
  if (all.length === 0) return;
  const row = await trx.selectFrom("transactions").selectAll().where("id", "=", txId).executeTakeFirst();
  if (!row) return;
  const record = toRecord(row);
  const event = eventOf(record);
  if (!event) return;
  const endpoints = all.filter((endpoint) => {
    const events = knownEventTypes(endpoint.events);
    // An endpoint whose every stored type is unknown here subscribed to something: not to everything.
    return endpoint.events === "[]" ? true : events.length > 0 && subscribes(events, event.type);
  });
  if (endpoints.length === 0) return;
  const reached = await trx
    .selectFrom("webhook_events")
    .select((eb) => eb.fn.max("rank").as("rank"))
    .where("tx_id", "=", txId)
    .executeTakeFirst();
  if (reached?.rank != null && Number(reached.rank) >= event.rank) return;
  const at = now.toISOString();
  const id = newEventId();
  const { seq } = await trx
    .insertInto("webhook_events")
    .values({
      id,
      app_id: record.appId,
      tx_id: txId,
      type: event.type,
      rank: event.rank,
      body: eventBody(event.type, now, event.data),
      created_at: at,
    })
    .returning("seq")
    .executeTakeFirstOrThrow();
  await trx
    .insertInto("webhook_deliveries")
    .values(
      endpoints.map((endpoint) => ({
        id: randomUUID(),
        event_seq: Number(seq),
        endpoint_id: endpoint.id,
        tx_id: txId,
        // A disabled endpoint's deliveries wait, held, out of the claims' way, until it is enabled again.
        status: endpoint.status === "enabled" ? ("pending" as const) : ("held" as const),
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
      })),
    )
    .execute();
}
