import { randomUUID } from "node:crypto";
import { type Kysely, type Transaction, sql } from "kysely";
import type { SecretsKeyring } from "../../crypto/secretsKeyring";
import type { AttemptResult, ClaimedDelivery, EndpointHealth } from "../../webhooks/webhookDelivery";
import { newEndpointId, newEventId, type NewWebhookEndpoint } from "../../webhooks/webhookEndpoint";
import { TEST_EVENT_TYPE } from "../../webhooks/webhookEvents";
import { isPostgres } from "../migrations/dialect";
import { lockKeys } from "../postgres/advisoryLocks";
import type { DatabaseSchema } from "../schema";
import { EndpointLimitError, type WebhooksRepository } from "../webhooksRepository";
import { openEndpointSecret, sealEndpointSecret, toAttempt, toEndpoint } from "./webhookRows";

/**
 * WebhooksRepository on either database. A claim is taken in one transaction: on SQLite `begin immediate` makes it
 * the only writer; on PostgreSQL the rows are selected `for update skip locked`, so instances claiming at once take
 * different deliveries. Either way a claimed delivery carries a token and an end, and is not claimed again before.
 */
export class SqliteWebhooksRepository implements WebhooksRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
    private readonly keyring: SecretsKeyring | undefined,
  ) {}

  addEndpoint(endpoint: NewWebhookEndpoint, maxPerApp: number) {
    return this.db.transaction().execute(async (trx) => {
      // PostgreSQL: the app's registrations take turns, so two at once cannot both pass the count.
      await lockKeys(trx, [`webhook-endpoints:${endpoint.appId}`]);
      const { count } = await trx
        .selectFrom("webhook_endpoints")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("app_id", "=", endpoint.appId)
        .executeTakeFirstOrThrow();
      if (Number(count) >= maxPerApp) throw new EndpointLimitError(maxPerApp);
      const id = newEndpointId();
      const now = this.clock().toISOString();
      const row = {
        id,
        app_id: endpoint.appId,
        url: endpoint.url,
        events: JSON.stringify(endpoint.events),
        secret_sealed: sealEndpointSecret(this.keyring, id, endpoint.secret),
        status: "enabled" as const,
        disabled_reason: null,
        consecutive_failures: 0,
        failing_since: null,
        created_at: now,
        updated_at: now,
      };
      await trx.insertInto("webhook_endpoints").values(row).execute();
      return toEndpoint(row);
    });
  }

  async listEndpoints(appId?: string) {
    const rows = await this.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .$if(appId !== undefined, (q) => q.where("app_id", "=", appId!))
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(toEndpoint);
  }

  async findEndpoint(id: string) {
    const row = await this.db.selectFrom("webhook_endpoints").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toEndpoint(row);
  }

  async removeEndpoint(id: string, appId?: string) {
    const result = await this.db
      .deleteFrom("webhook_endpoints")
      .where("id", "=", id)
      .$if(appId !== undefined, (q) => q.where("app_id", "=", appId!))
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async rotateSecret(id: string, secret: string) {
    const result = await this.db
      .updateTable("webhook_endpoints")
      .set({ secret_sealed: sealEndpointSecret(this.keyring, id, secret), updated_at: this.clock().toISOString() })
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  setStatus(id: string, change: { enabled: true } | { enabled: false; reason: string }) {
    return this.db.transaction().execute(async (trx) => {
      const now = this.clock().toISOString();
      const result = await trx
        .updateTable("webhook_endpoints")
        .set(
          change.enabled
            ? {
                status: "enabled",
                disabled_reason: null,
                consecutive_failures: 0,
                failing_since: null,
                updated_at: now,
              }
            : { status: "disabled", disabled_reason: change.reason, updated_at: now },
        )
        .where("id", "=", id)
        .executeTakeFirst();
      // Re-enabled: what it is owed is due at once, in order, instead of where its schedule had pushed it.
      if (change.enabled) {
        await trx
          .updateTable("webhook_deliveries")
          .set({ next_attempt_at: now })
          .where("endpoint_id", "=", id)
          .where("status", "=", "pending")
          .execute();
      }
      return result.numUpdatedRows > 0n;
    });
  }

  recordTestEvent(endpointId: string, body: (eventId: string, at: Date) => string) {
    return this.db.transaction().execute(async (trx) => {
      const endpoint = await trx
        .selectFrom("webhook_endpoints")
        .select("app_id")
        .where("id", "=", endpointId)
        .executeTakeFirstOrThrow();
      const now = this.clock();
      const at = now.toISOString();
      const eventId = newEventId();
      const { seq } = await trx
        .insertInto("webhook_events")
        .values({
          id: eventId,
          app_id: endpoint.app_id,
          tx_id: null,
          type: TEST_EVENT_TYPE,
          rank: 0,
          body: body(eventId, now),
          created_at: at,
        })
        .returning("seq")
        .executeTakeFirstOrThrow();
      const deliveryId = randomUUID();
      await trx
        .insertInto("webhook_deliveries")
        .values({
          id: deliveryId,
          event_seq: Number(seq),
          endpoint_id: endpointId,
          tx_id: null,
          status: "pending",
          attempts: 0,
          next_attempt_at: at,
          created_at: at,
        })
        .execute();
      return { eventId, deliveryId };
    });
  }

  claimDue(options: { limit: number; claimMs: number; deliveryId?: string }) {
    return this.db.transaction().execute(async (trx) => {
      const now = this.clock();
      const ids = await this.claimable(trx, now.toISOString(), options);
      if (ids.length === 0) return [];
      const token = randomUUID();
      await trx
        .updateTable("webhook_deliveries")
        .set({ claim_token: token, claimed_until: new Date(now.getTime() + options.claimMs).toISOString() })
        .where("id", "in", ids)
        .execute();
      const rows = await trx
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhook_events as ev", "ev.seq", "d.event_seq")
        .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
        .select([
          "d.id",
          "d.attempts",
          "ev.id as event_id",
          "ev.type",
          "ev.body",
          "ev.created_at",
          "e.id as endpoint_id",
          "e.app_id",
          "e.url",
          "e.secret_sealed",
        ])
        .where("d.id", "in", ids)
        .orderBy("d.event_seq")
        .execute();
      return rows.map((row): ClaimedDelivery => ({
        deliveryId: row.id,
        claimToken: token,
        eventId: row.event_id,
        eventType: row.type,
        eventAt: row.created_at,
        body: row.body,
        endpointId: row.endpoint_id,
        appId: row.app_id,
        url: row.url,
        secret: openEndpointSecret(this.keyring, row.endpoint_id, row.secret_sealed),
        attemptsBefore: Number(row.attempts),
      }));
    });
  }

  /**
   * The deliveries a claim may take: pending, due, unclaimed (or their claim ended), of an enabled endpoint, and not
   * behind an earlier event of the same request still owed to the same endpoint (a request's events arrive in order).
   */
  private async claimable(
    trx: Transaction<DatabaseSchema>,
    now: string,
    options: { limit: number; deliveryId?: string },
  ): Promise<string[]> {
    const lock = isPostgres(trx) ? sql`for update of d skip locked` : sql``;
    const one = options.deliveryId === undefined ? sql`` : sql`and d.id = ${options.deliveryId}`;
    const due = options.deliveryId === undefined ? sql`and d.next_attempt_at <= ${now}` : sql``;
    const result = await sql<{ id: string }>`
      select d.id from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      where d.status = 'pending' ${due} ${one}
        and (d.claimed_until is null or d.claimed_until <= ${now})
        and e.status = 'enabled'
        and not exists (
          select 1 from webhook_deliveries p
          where p.endpoint_id = d.endpoint_id and p.tx_id = d.tx_id and p.status = 'pending' and p.event_seq < d.event_seq
        )
      order by d.next_attempt_at, d.event_seq
      limit ${options.limit}
      ${lock}`.execute(trx);
    return result.rows.map((row) => row.id);
  }

  recordAttempt(claim: ClaimedDelivery, result: AttemptResult, retryAt: Date | undefined) {
    return this.db.transaction().execute(async (trx): Promise<EndpointHealth> => {
      const at = result.at.toISOString();
      const exists = await trx
        .selectFrom("webhook_deliveries")
        .select("id")
        .where("id", "=", claim.deliveryId)
        .$if(isPostgres(trx), (q) => q.forUpdate())
        .executeTakeFirst();
      // The endpoint was removed meanwhile, and what it was owed with it.
      if (!exists) return { consecutiveFailures: 0, failingSince: undefined };
      await trx
        .insertInto("webhook_attempts")
        .values({
          delivery_id: claim.deliveryId,
          endpoint_id: claim.endpointId,
          event_id: claim.eventId,
          attempt: claim.attemptsBefore + 1,
          at,
          outcome: result.outcome,
          status_code: result.statusCode ?? null,
          error: result.error ?? null,
          duration_ms: Math.round(result.durationMs),
        })
        .execute();
      const delivered = result.outcome === "delivered";
      await trx
        .updateTable("webhook_deliveries")
        .set((eb) => ({
          status: delivered ? "delivered" : retryAt ? "pending" : "failed",
          attempts: eb("attempts", "+", 1),
          next_attempt_at: (retryAt ?? result.at).toISOString(),
          claim_token: null,
          claimed_until: null,
          last_attempt_at: at,
          last_status_code: result.statusCode ?? null,
          last_error: result.error ?? null,
          delivered_at: delivered ? at : null,
        }))
        .where("id", "=", claim.deliveryId)
        .where("claim_token", "=", claim.claimToken)
        .execute();
      const health = await trx
        .updateTable("webhook_endpoints")
        .set((eb) =>
          delivered
            ? { consecutive_failures: 0, failing_since: null }
            : {
                consecutive_failures: eb("consecutive_failures", "+", 1),
                failing_since: eb.fn.coalesce("failing_since", eb.val(at)),
              },
        )
        .where("id", "=", claim.endpointId)
        .returning(["consecutive_failures", "failing_since"])
        .executeTakeFirst();
      return {
        consecutiveFailures: Number(health?.consecutive_failures ?? 0),
        failingSince: health?.failing_since ?? undefined,
      };
    });
  }

  async attempts(endpointId: string, limit: number) {
    const rows = await this.db
      .selectFrom("webhook_attempts as a")
      .innerJoin("webhook_deliveries as d", "d.id", "a.delivery_id")
      .innerJoin("webhook_events as ev", "ev.seq", "d.event_seq")
      .selectAll("a")
      .select(["ev.type as event_type", "d.status as delivery_status"])
      .where("a.endpoint_id", "=", endpointId)
      .orderBy("a.seq", "desc")
      .limit(limit)
      .execute();
    return rows.map(toAttempt);
  }

  async redeliver(eventId: string) {
    const result = await this.db
      .updateTable("webhook_deliveries")
      .set({ status: "pending", attempts: 0, next_attempt_at: this.clock().toISOString(), delivered_at: null })
      .where("event_seq", "=", (eb) => eb.selectFrom("webhook_events").select("seq").where("id", "=", eventId))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async queue() {
    const row = await this.db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_events as ev", "ev.seq", "d.event_seq")
      .select((eb) => [eb.fn.countAll<number>().as("pending"), eb.fn.min("ev.created_at").as("oldest")])
      .where("d.status", "=", "pending")
      .executeTakeFirstOrThrow();
    return { pending: Number(row.pending), oldestEventAt: row.oldest ?? undefined };
  }

  async attemptCounts() {
    const rows = await this.db
      .selectFrom("webhook_attempts")
      .select(["endpoint_id", "outcome", (eb) => eb.fn.countAll<number>().as("count")])
      .groupBy(["endpoint_id", "outcome"])
      .execute();
    return rows.map((row) => ({ endpointId: row.endpoint_id, outcome: row.outcome, count: Number(row.count) }));
  }
}
