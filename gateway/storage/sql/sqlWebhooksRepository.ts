import type { Kysely } from "kysely";
import { SecretsKeyError, type SecretsKeyring } from "../../crypto/secretsKeyring";
import type { AttemptResult, ClaimedDelivery, ClaimOptions } from "../../webhooks/webhookDelivery";
import { newEndpointId, type NewWebhookEndpoint } from "../../webhooks/webhookEndpoint";
import type { WebhookOutbox } from "../../webhooks/webhookOutbox";
import { lockKeys } from "./dialect/keyLocks";
import type { DatabaseSchema } from "../schema";
import { EndpointLimitError, type WebhooksRepository } from "../../webhooks/webhooksRepository";
import { openEndpointSecret, sealEndpointSecret, toAttempt, toEndpoint } from "./webhookRows";
import { claimDeliveries, recordWebhookAttempt } from "./webhookClaims";
import { pruneFinishedDeliveries, resealEndpointSecrets } from "./webhookUpkeep";
import type { OutboxSignal } from "./outboxSignal";
import { SqlWebhookOutbox } from "./sqlWebhookOutbox";

/**
 * WebhooksRepository on either database. A claim is taken in one transaction: on SQLite `begin immediate` makes it
 * the only writer; on PostgreSQL the rows are selected `for update skip locked`, so instances claiming at once take
 * different deliveries. Either way a claimed delivery carries a token and an end, and is not claimed again before.
 */
export class SqlWebhooksRepository implements WebhooksRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
    private readonly keyring: SecretsKeyring | undefined,
    /** Told when an event recorded here commits (shared with the transactions repository's outbox). */
    private readonly signal: OutboxSignal,
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
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        status: "enabled" as const,
        disabled_reason: null,
        consecutive_failures: 0,
        first_failed_at: null,
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

  async rotateSecret(id: string, secret: string, keepPreviousMs = 0) {
    const now = this.clock();
    const sealed = sealEndpointSecret(this.keyring, id, secret);
    const result = await this.db
      .updateTable("webhook_endpoints")
      .set((eb) => ({
        // The secret being replaced becomes the previous one (sealed for the same row, so it opens as it is).
        previous_secret_sealed: keepPreviousMs > 0 ? eb.ref("secret_sealed") : null,
        previous_secret_expires_at: keepPreviousMs > 0 ? new Date(now.getTime() + keepPreviousMs).toISOString() : null,
        secret_sealed: sealed,
        updated_at: now.toISOString(),
      }))
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
                first_failed_at: null,
                updated_at: now,
              }
            : { status: "disabled", disabled_reason: change.reason, updated_at: now },
        )
        .where("id", "=", id)
        .executeTakeFirst();
      // Disabled: what it is owed is held, out of every claim's way (a disabled endpoint's backlog costs no poll);
      // re-enabled: it is due at once, in order, instead of where its schedule had pushed it.
      await trx
        .updateTable("webhook_deliveries")
        .set(change.enabled ? { status: "pending", next_attempt_at: now } : { status: "held" })
        .where("endpoint_id", "=", id)
        .where("status", "=", change.enabled ? "held" : "pending")
        .execute();
      return result.numUpdatedRows > 0n;
    });
  }

  async withOutbox<T>(work: (outbox: WebhookOutbox, now: Date) => Promise<T>): Promise<T> {
    let outbox: SqlWebhookOutbox | undefined;
    const result = await this.db.transaction().execute((trx) => {
      outbox = new SqlWebhookOutbox(trx);
      return work(outbox, this.clock());
    });
    if (outbox?.recorded) this.signal.committed();
    return result;
  }

  onEventRecorded(listener: () => void): () => void {
    return this.signal.listen(listener);
  }

  async claimDue(options: ClaimOptions) {
    const keyring = this.keyring;
    // Nothing is claimed that could not be signed: a process without SECRETS_KEY leaves deliveries to one with it.
    if (!keyring) throw new SecretsKeyError("webhook signing secrets are sealed under SECRETS_KEY, which is not set");
    const now = this.clock();
    const rows = await this.db.transaction().execute((trx) => claimDeliveries(trx, now, options));
    // Secrets are opened after the claim commits, so one that does not open fails its delivery alone.
    const claims: ClaimedDelivery[] = [];
    for (const { sealedSecret, sealedPrevious, ...row } of rows) {
      try {
        const secret = openEndpointSecret(keyring, row.endpointId, sealedSecret);
        const previous = sealedPrevious && this.openPrevious(row.endpointId, sealedPrevious, now);
        claims.push({ ...row, secret, ...(previous ? { previousSecret: previous } : {}) });
      } catch (error) {
        if (!(error instanceof SecretsKeyError)) throw error;
        if (keyring.keyIdOf(sealedSecret) === keyring.currentKeyId) {
          // Sealed under this very key and still not opening: altered, or moved from another endpoint's row.
          await this.setStatus(row.endpointId, {
            enabled: false,
            reason: "its signing secret does not open under SECRETS_KEY (altered or moved): rotate it",
          });
        } else {
          // Sealed under a key this process lacks (another instance already runs on a new SECRETS_KEY): left for a
          // process that has it; the oldest-undelivered metric shows it if none has.
          await this.releaseClaim(row.deliveryId, row.claimToken);
        }
      }
    }
    return claims;
  }

  private async releaseClaim(deliveryId: string, claimToken: string): Promise<void> {
    await this.db
      .updateTable("webhook_deliveries")
      .set({ claim_token: null, claim_expires_at: null })
      .where("id", "=", deliveryId)
      .where("claim_token", "=", claimToken)
      .execute();
  }

  /** A rotated-out secret still in its overlap, opened; one that does not open is dropped, not fatal. */
  private openPrevious(endpointId: string, sealed: { sealed: string; until: string }, now: Date) {
    if (new Date(sealed.until) <= now) return undefined;
    try {
      return openEndpointSecret(this.keyring, endpointId, sealed.sealed);
    } catch (error) {
      if (error instanceof SecretsKeyError) return undefined;
      throw error;
    }
  }

  recordAttempt(claim: ClaimedDelivery, result: AttemptResult, retryAt: Date | undefined) {
    return this.db.transaction().execute((trx) => recordWebhookAttempt(trx, claim, result, retryAt));
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
      .set((eb) => ({
        // Held again if its endpoint is disabled: sent once it is enabled.
        status: eb
          .case()
          .when(
            eb.exists(
              eb
                .selectFrom("webhook_endpoints as e")
                .select("e.id")
                .whereRef("e.id", "=", "webhook_deliveries.endpoint_id")
                .where("e.status", "=", "enabled"),
            ),
          )
          .then(eb.val<"pending" | "held">("pending"))
          .else(eb.val<"pending" | "held">("held"))
          .end(),
        attempts: 0,
        next_attempt_at: this.clock().toISOString(),
        delivered_at: null,
      }))
      .where("event_seq", "=", (eb) => eb.selectFrom("webhook_events").select("seq").where("id", "=", eventId))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  resealSecrets() {
    return this.db.transaction().execute((trx) => resealEndpointSecrets(trx, this.keyring));
  }

  prune(before: Date, batch = 1000) {
    return pruneFinishedDeliveries(this.db, before, batch);
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
