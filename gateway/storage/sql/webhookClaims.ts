import { randomUUID } from "node:crypto";
import { type Transaction, sql } from "kysely";
import type { AttemptResult, ClaimedDelivery, ClaimOptions, EndpointHealth } from "../../webhooks/webhookDelivery";
import { chooseWithinShares, type ClaimCandidate } from "../../webhooks/deliveryShares";
import { lockRows, lockRowsFirst, rowLockClause } from "./dialect/rowLocks";
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
 * of the same request still owed to the same endpoint (a request's events arrive in order); which of them fit the
 * endpoints' and apps' shares of attempts in flight is the webhooks' rule (webhooks/deliveryShares.ts). On PostgreSQL
 * the rows are locked `for update skip locked` as they are read, so claimers at once take different ones; SQLite's
 * `begin immediate` runs one at a time.
 */
export async function claimDeliveries(
  trx: Transaction<DatabaseSchema>,
  now: Date,
  options: ClaimOptions,
): Promise<SealedClaim[]> {
  const at = now.toISOString();
  const ids =
    options.deliveryId === undefined
      ? await withinShares(trx, at, options)
      : (await candidates(trx, at, { ...options, limit: 1 }, [])).map((candidate) => candidate.id);
  if (ids.length === 0) return [];
  const token = randomUUID();
  await trx
    .updateTable("webhook_deliveries")
    .set({ claim_token: token, claim_expires_at: new Date(now.getTime() + options.claimMs).toISOString() })
    .where("id", "in", ids)
    .execute();
  const rows = await trx
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as ev", "ev.seq", "d.event_seq")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .select(["d.id", "d.attempts", "ev.id as event_id", "ev.type", "ev.body", "ev.created_at"])
    .select(["e.id as endpoint_id", "e.app_id", "e.url", "e.secret_sealed"])
    .select(["e.previous_secret_sealed", "e.previous_secret_expires_at"])
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
      row.previous_secret_sealed && row.previous_secret_expires_at
        ? { sealed: row.previous_secret_sealed, until: row.previous_secret_expires_at }
        : undefined,
    attemptsBefore: Number(row.attempts),
  }));
}

/**
 * The next `limit` deliveries a claim may take, past those already `seen`, locked on PostgreSQL as they are read: due
 * first, then in recording order, none behind an earlier event of its request still owed to its endpoint (a query's
 * condition, not a filter after it, so one endpoint's backlog of held-back events cannot fill every read).
 */
async function candidates(
  trx: Transaction<DatabaseSchema>,
  at: string,
  options: ClaimOptions,
  seen: readonly string[],
): Promise<ClaimCandidate[]> {
  const lock = rowLockClause(trx, "update", { of: "d", skipLocked: true });
  const one = options.deliveryId === undefined ? sql`` : sql`and d.id = ${options.deliveryId}`;
  const due = options.deliveryId === undefined ? sql`and d.next_attempt_at <= ${at}` : sql``;
  const past = seen.length === 0 ? sql`` : sql`and d.id not in (${sql.join(seen)})`;
  const result = await sql<ClaimCandidate>`
    select d.id, d.endpoint_id as "endpointId", e.app_id as "appId" from webhook_deliveries d
    join webhook_endpoints e on e.id = d.endpoint_id
    where d.status = 'pending' ${due} ${one} ${past}
      and (d.claim_expires_at is null or d.claim_expires_at <= ${at})
      and e.status = 'enabled'
      and not exists (
        select 1 from webhook_deliveries p
        where p.endpoint_id = d.endpoint_id and p.tx_id = d.tx_id and p.status in ('pending', 'held')
          and p.event_seq < d.event_seq
      )
    order by d.next_attempt_at, d.event_seq
    limit ${options.limit}
    ${lock}`.execute(trx);
  return result.rows;
}

/** Up to `limit` deliveries, in order, that fit each endpoint's and app's share of attempts in flight. */
async function withinShares(trx: Transaction<DatabaseSchema>, at: string, options: ClaimOptions): Promise<string[]> {
  const inFlight = await trx
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .select(["d.endpoint_id", "e.app_id", (eb) => eb.fn.countAll<number>().as("count")])
    .where("d.claim_expires_at", ">", at)
    .where("d.status", "=", "pending")
    .groupBy(["d.endpoint_id", "e.app_id"])
    .execute();
  return chooseWithinShares({
    limit: options.limit,
    shares: options,
    inFlight: inFlight.map((row) => ({ endpointId: row.endpoint_id, appId: row.app_id, count: Number(row.count) })),
    readNext: (seen) => candidates(trx, at, options, seen),
  });
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
  // Where rows are locked (PostgreSQL): the endpoint's row first, then the delivery's, the order in which removing an
  // endpoint locks them.
  await lockRowsFirst(trx, (t) => t.selectFrom("webhook_endpoints").select("id").where("id", "=", claim.endpointId));
  const exists = await trx
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("id", "=", claim.deliveryId)
    .$call(lockRows(trx, "update"))
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
      claim_expires_at: null,
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
        ? { consecutive_failures: 0, first_failed_at: null }
        : {
            consecutive_failures: eb("consecutive_failures", "+", 1),
            first_failed_at: eb.fn.coalesce("first_failed_at", eb.val(at)),
          },
    )
    .where("id", "=", claim.endpointId)
    .returning(["consecutive_failures", "first_failed_at"])
    .executeTakeFirst();
  return {
    consecutiveFailures: Number(health?.consecutive_failures ?? 0),
    failingSince: health?.first_failed_at ?? undefined,
  };
}
