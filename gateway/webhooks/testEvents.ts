import { randomUUID } from "node:crypto";
import { newEventId } from "./webhookEndpoint";
import { eventBody, TEST_EVENT_TYPE } from "./webhookEvents";
import { newDeliveryStatus } from "./webhookSubscriptions";
import type { WebhooksRepository } from "./webhooksRepository";

/** The body of a `webhook.test` event: what it is, and which endpoint it was sent to. */
export const testEventBody = (endpointId: string) => (eventId: string, at: Date) =>
  eventBody(TEST_EVENT_TYPE, at, { endpointId, eventId, message: "A test event from idwallet" });

/**
 * Records a `webhook.test` event owed to one endpoint alone, whatever it subscribed to, due now (held while the
 * endpoint is disabled); `body` makes its bytes from its id and time. Returns its event and delivery ids. It is about
 * no request, so it ranks below every request event (0) and holds up none.
 */
export function recordTestEvent(
  repository: Pick<WebhooksRepository, "withOutbox">,
  endpointId: string,
  body: (eventId: string, at: Date) => string = testEventBody(endpointId),
): Promise<{ eventId: string; deliveryId: string }> {
  return repository.withOutbox(async (outbox, now) => {
    const endpoint = await outbox.subscription(endpointId);
    if (!endpoint) throw new Error(`no webhook endpoint ${endpointId}`);
    const eventId = newEventId();
    const delivery = { id: randomUUID(), endpointId, status: newDeliveryStatus(endpoint) };
    await outbox.record({
      event: {
        id: eventId,
        appId: endpoint.appId,
        txId: undefined,
        type: TEST_EVENT_TYPE,
        rank: 0,
        body: body(eventId, now),
        at: now,
      },
      deliveries: [delivery],
    });
    return { eventId, deliveryId: delivery.id };
  });
}
