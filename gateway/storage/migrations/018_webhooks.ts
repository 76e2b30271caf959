import type { Kysely } from "kysely";
import { int64, isPostgres, timestamp } from "./dialect";

/**
 * Webhooks (issue 21): apps' endpoints, the outbox of events, one delivery per event and endpoint, and every attempt.
 *
 * - `webhook_endpoints`: an app's URL, the event types it takes (JSON array; empty: all), its signing secret sealed
 *   under SECRETS_KEY (context: the endpoint id), the secret it replaced while that still signs beside it (a
 *   rotation's overlap), and its run of failures (which disables it).
 * - `webhook_events`: the outbox. A request's event is written in the transaction that changes its state, with the body
 *   every attempt sends; `seq` orders a request's events, `rank` keeps them from going backwards.
 * - `webhook_deliveries`: an event owed to one endpoint. A worker claims it (`claim_token`, `claim_expires_at`) before it
 *   posts, so no two processes or instances send the same attempt at once, and records the outcome under that token.
 * - `webhook_attempts`: every attempt made, for `webhooks deliveries` and the delivery metrics.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("app_id", "text", (col) => col.notNull().references("apps.id"))
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("events", "text", (col) => col.notNull())
    .addColumn("secret_sealed", "text", (col) => col.notNull())
    .addColumn("previous_secret_sealed", "text")
    .addColumn("previous_secret_expires_at", timestamp(db))
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("disabled_reason", "text")
    .addColumn("consecutive_failures", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("first_failed_at", timestamp(db))
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("updated_at", timestamp(db), (col) => col.notNull())
    .execute();
  await db.schema.createIndex("webhook_endpoints_app").on("webhook_endpoints").column("app_id").execute();

  await db.schema
    .createTable("webhook_events")
    .addColumn("seq", int64(db), (col) =>
      postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn("id", "text", (col) => col.notNull().unique())
    .addColumn("app_id", "text", (col) => col.notNull())
    .addColumn("tx_id", "text")
    .addColumn("type", "text", (col) => col.notNull())
    .addColumn("rank", "integer", (col) => col.notNull())
    .addColumn("body", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .execute();
  await db.schema.createIndex("webhook_events_tx").on("webhook_events").column("tx_id").execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("event_seq", int64(db), (col) => col.notNull().references("webhook_events.seq"))
    .addColumn("endpoint_id", "text", (col) => col.notNull().references("webhook_endpoints.id").onDelete("cascade"))
    .addColumn("tx_id", "text")
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("next_attempt_at", timestamp(db), (col) => col.notNull())
    .addColumn("claim_token", "text")
    .addColumn("claim_expires_at", timestamp(db))
    .addColumn("last_attempt_at", timestamp(db))
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("delivered_at", timestamp(db))
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addUniqueConstraint("webhook_deliveries_event_endpoint", ["event_seq", "endpoint_id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due")
    .on("webhook_deliveries")
    .columns(["status", "next_attempt_at"])
    .execute();
  // The claims in flight, counted against each endpoint's and app's share at every claim.
  await db.schema
    .createIndex("webhook_deliveries_claim_expiry")
    .on("webhook_deliveries")
    .column("claim_expires_at")
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_order")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "tx_id", "event_seq"])
    .execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("seq", int64(db), (col) =>
      postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn("delivery_id", "text", (col) => col.notNull().references("webhook_deliveries.id").onDelete("cascade"))
    .addColumn("endpoint_id", "text", (col) => col.notNull())
    .addColumn("event_id", "text", (col) => col.notNull())
    .addColumn("attempt", "integer", (col) => col.notNull())
    .addColumn("at", timestamp(db), (col) => col.notNull())
    .addColumn("outcome", "text", (col) => col.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_attempts_endpoint")
    .on("webhook_attempts")
    .columns(["endpoint_id", "seq"])
    .execute();
}

/** Drops the tables; only for development, a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["webhook_attempts", "webhook_deliveries", "webhook_events", "webhook_endpoints"]) {
    await db.schema.dropTable(table).execute();
  }
}
