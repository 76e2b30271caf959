import type { Transaction } from "kysely";
import type { OutboxEntry, WebhookOutbox } from "../../webhooks/webhookOutbox";
import type { EndpointSubscription } from "../../webhooks/webhookSubscriptions";
import { lockRows } from "./dialect/rowLocks";
import type { DatabaseSchema } from "../schema";
import { storedEventTypes } from "./webhookRows";

/** The columns of an endpoint the outbox reads. */
const SUBSCRIPTION = ["e.id", "e.app_id", "e.events", "e.status"] as const;

/** An endpoint row as an event is addressed to it. */
const toSubscription = (row: {
  id: string;
  app_id: string;
  events: string;
  status: "enabled" | "disabled";
}): EndpointSubscription => ({
  id: row.id,
  appId: row.app_id,
  events: storedEventTypes(row.events),
  status: row.status,
});

/**
 * WebhookOutbox inside one database transaction: it reads and stores what the webhook rules ask (webhooks/), and
 * decides nothing. `recorded` says whether an event was stored, to tell the delivery loop once the transaction commits.
 */
export class SqlWebhookOutbox implements WebhookOutbox {
  /** Whether an event was stored in this transaction. */
  recorded = false;
  /** Each app's endpoints as this transaction first read them. */
  private readonly subscribed = new Map<string, Promise<EndpointSubscription[]>>();

  constructor(private readonly trx: Transaction<DatabaseSchema>) {}

  /**
   * Read once per app and transaction: a bundle's events, dozens of one app's requests changed together, are one
   * change and go to the endpoints the app had when it began (issue 37: a read per event was a tenth of a request's
   * statements). The read locks them, so none of them can go before the transaction ends (an outbox's transaction rolls
   * back to no savepoint, which would release that lock).
   */
  subscriptions(appId: string): Promise<EndpointSubscription[]> {
    let read = this.subscribed.get(appId);
    if (!read) {
      read = this.readSubscriptions(appId);
      this.subscribed.set(appId, read);
      // A failed read is not kept: the transaction fails with it anyway, and nothing may be answered from it.
      read.catch(() => this.subscribed.delete(appId));
    }
    return read;
  }

  private async readSubscriptions(appId: string): Promise<EndpointSubscription[]> {
    // PostgreSQL: `for key share` keeps an endpoint from being deleted before its delivery is inserted (the insert
    // would fail its foreign key, and with it the state change it rides with), while leaving its other columns free.
    const rows = await this.trx
      .selectFrom("webhook_endpoints as e")
      .select(SUBSCRIPTION)
      .where("e.app_id", "=", appId)
      .$call(lockRows(this.trx, "keyShare", { of: "e" }))
      .execute();
    return rows.map(toSubscription);
  }

  async subscription(endpointId: string): Promise<EndpointSubscription | undefined> {
    const row = await this.trx
      .selectFrom("webhook_endpoints as e")
      .select(SUBSCRIPTION)
      .where("e.id", "=", endpointId)
      .executeTakeFirst();
    return row && toSubscription(row);
  }

  async reachedRank(txId: string): Promise<number | undefined> {
    const reached = await this.trx
      .selectFrom("webhook_events")
      .select((eb) => eb.fn.max("rank").as("rank"))
      .where("tx_id", "=", txId)
      .executeTakeFirst();
    return reached?.rank == null ? undefined : Number(reached.rank);
  }

  async record({ event, deliveries }: OutboxEntry): Promise<void> {
    const at = event.at.toISOString();
    const txId = event.txId ?? null;
    const { seq } = await this.trx
      .insertInto("webhook_events")
      .values({
        id: event.id,
        app_id: event.appId,
        tx_id: txId,
        type: event.type,
        rank: event.rank,
        body: event.body,
        created_at: at,
      })
      .returning("seq")
      .executeTakeFirstOrThrow();
    if (deliveries.length > 0) {
      await this.trx
        .insertInto("webhook_deliveries")
        .values(
          deliveries.map((delivery) => ({
            id: delivery.id,
            event_seq: Number(seq),
            endpoint_id: delivery.endpointId,
            tx_id: txId,
            status: delivery.status,
            attempts: 0,
            next_attempt_at: at,
            created_at: at,
          })),
        )
        .execute();
    }
    this.recorded = true;
  }
}
