import { randomUUID } from "node:crypto";
import type { TxRecord } from "../transactions/txRecord";
import { newEventId } from "./webhookEndpoint";
import { eventBody, eventOf, movesFurther } from "./webhookEvents";
import type { WebhookOutbox } from "./webhookOutbox";
import { newDeliveryStatus, receives } from "./webhookSubscriptions";

/**
 * The webhook side of a change of a request's state (issue 21): handed the request as the change left it, inside the
 * change's database transaction, records through `outbox` the event that state is and a delivery to each of the app's
 * endpoints that takes it, so an event is never lost to a crash between the change and its delivery, nor sent for a
 * change that was rolled back. Nothing is recorded for a state that is no event (`queued`), for an app with no
 * endpoint taking it, or for an event that would not move the request further than one already recorded for it (a
 * second `submitted` after a retry; anything after a final event). The body is made now, from the request's public
 * record of this moment, and every attempt sends these bytes.
 */
export async function recordRequestEvent(outbox: WebhookOutbox, changed: TxRecord, now: Date): Promise<void> {
  const event = eventOf(changed);
  if (!event) return;
  // The app's endpoints first, in one look-up: with none (most apps), the state change costs nothing more.
  const endpoints = (await outbox.subscriptions(changed.appId)).filter((endpoint) => receives(endpoint, event.type));
  if (endpoints.length === 0) return;
  if (!movesFurther(event.rank, await outbox.reachedRank(changed.id))) return;
  await outbox.record({
    event: {
      id: newEventId(),
      appId: changed.appId,
      txId: changed.id,
      type: event.type,
      rank: event.rank,
      body: eventBody(event.type, now, event.data),
      at: now,
    },
    deliveries: endpoints.map((endpoint) => ({
      id: randomUUID(),
      endpointId: endpoint.id,
      status: newDeliveryStatus(endpoint),
    })),
  });
}
