import { randomUUID } from "node:crypto";
import { type Transaction, sql } from "kysely";
import type { AttemptResult, ClaimedDelivery, EndpointHealth } from "../../webhooks/webhookDelivery";
import { isPostgres } from "../migrations/dialect";
import type { DatabaseSchema } from "../schema";

/** A delivery claimed, its endpoint's secret still sealed (opened by the repository once the claim commits). */
export type SealedClaim = Omit<ClaimedDelivery, "secret" | "previousSecret"> & {
  readonly sealedSecret: string;
  /** The rotated-out secret and until when it signs, if the endpoint has one. */
  readonly sealedPrevious: { readonly sealed: string; readonly until: string } | undefined;
};

/**
 * Claims, in `trx`, up to `limit` deliveries a claim may take (or the one `deliveryId`) until `now` + `claimMs`, under a
 * new token: pending, due, unclaimed (or their claim ended), of an enabled endpoint, and not behind an earlier event
 * of the same request still owed to the same endpoint (a request's events arrive in order). On PostgreSQL the rows
 * are locked `for update skip locked`, so claimers at once take different ones; SQLite's `begin immediate` runs one.
 */
export async function claimDeliveries(
  trx: Transaction<DatabaseSchema>,
  now: Date,
  options: { limit: number; claimMs: number; deliveryId?: string },
): Promise<SealedClaim[]> {
  const at = now.toISOString();
  const lock = isPostgres(trx) ? sql`for update of d skip locked` : sql``;
  const one = options.deliveryId === undefined ? sql`` : sql`and d.id = ${options.deliveryId}`;
  const due = options.deliveryId === undefined ? sql`and d.next_attempt_at <= ${at}` : sql``;
  const claimable = await sql<{ id: string }>`
    select d.id from webhook_deliveries d
    join webhook_endpoints e on e.id = d.endpoint_id
    where d.status = 'pending' ${due} ${one}
      and (d.claimed_until is null or d.claimed_until <= ${at})
      and e.status = 'enabled'
      and not exists (
        select 1 from webhook_deliveries p
        where p.endpoint_id = d.endpoint_id and p.tx_id = d.tx_id and p.status = 'pending' and p.event_seq < d.event_seq
      )
    order by d.next_attempt_at, d.event_seq
    limit ${options.limit}
    ${lock}`.execute(trx);
  const ids = claimable.rows.map((row) => row.id);
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
    .select(["d.id", "d.attempts", "ev.id as event_id", "ev.type", "ev.body", "ev.created_at"])
    .select(["e.id as endpoint_id", "e.app_id", "e.url", "e.secret_sealed"])
    .select(["e.previous_secret_sealed", "e.previous_secret_until"])
    .where("d.id", "in", ids)
    .orderBy("d.event_seq")
    .execute();
  return rows.map((row) => ({
    deliveryId: row.id,
    claimToken: token,
    eventId: row.event_id,
    eventType: row.type,
    eventAt: row.created_at,
    body: row.body,
    endpointId: row.endpoint_id,
    appId: row.app_id,
    url: row.url,
    sealedSecret: row.secret_sealed,
    sealedPrevious:
      row.previous_secret_sealed && row.previous_secret_until
        ? { sealed: row.previous_secret_sealed, until: row.previous_secret_until }
        : undefined,
    attemptsBefore: Number(row.attempts),
  }));
}

/**
 * Records, in `trx`, an attempt made under `claim`: the attempt always (unless the endpoint was removed meanwhile,
 * and what it was owed with it); the delivery's new state only if the claim still holds; the endpoint's run of
 * failures, which it returns.
 */
export async function recordWebhookAttempt(
  trx: Transaction<DatabaseSchema>,
  claim: ClaimedDelivery,
  result: AttemptResult,
  retryAt: Date | undefined,
): Promise<EndpointHealth> {
  const at = result.at.toISOString();
  const exists = await trx
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("id", "=", claim.deliveryId)
    .$if(isPostgres(trx), (q) => q.forUpdate())
    .executeTakeFirst();
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
}
