import { sql, type Kysely } from "kysely";
import { decimal, int64, timestamp } from "./dialect";

/**
 * The dust-order interface (spec §2.8, §4.11): the token list of each chain (what may be swept), where each
 * asset's USD price comes from, and the orders themselves (a maker's approved tokens waiting to be swept into
 * the native coin; once swept, the sweep's transaction and values).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("dust_tokens")
    .addColumn("chain", "text", (col) => col.notNull())
    .addColumn("address", "text", (col) => col.notNull())
    .addColumn("symbol", "text", (col) => col.notNull())
    .addColumn("decimals", "integer", (col) => col.notNull())
    // Whether the operator sweeps it: `sweepable` or `unsupported` (a wallet's `approved` comes from its orders).
    .addColumn("listing", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addPrimaryKeyConstraint("dust_tokens_pk", ["chain", "address"])
    .addCheckConstraint("dust_tokens_listing_check", sql`listing in ('sweepable', 'unsupported')`)
    .addCheckConstraint("dust_tokens_decimals_check", sql`decimals between 0 and 36`)
    .execute();

  await db.schema
    .createTable("dust_prices")
    .addColumn("chain", "text", (col) => col.notNull())
    // A token contract, or `native` for the chain's coin.
    .addColumn("asset", "text", (col) => col.notNull())
    // Either a fixed USD price (decimal text) set by the admin, or a Chainlink AggregatorV3 feed read live.
    .addColumn("usd", "text")
    .addColumn("feed", "text")
    .addColumn("updated_at", timestamp(db), (col) => col.notNull())
    .addPrimaryKeyConstraint("dust_prices_pk", ["chain", "asset"])
    .addCheckConstraint("dust_prices_source_check", sql`(usd is null) <> (feed is null)`)
    .execute();

  await db.schema
    .createTable("dust_orders")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("chain", "text", (col) => col.notNull())
    .addColumn("maker", "text", (col) => col.notNull())
    .addColumn("token", "text", (col) => col.notNull())
    // Raw token units (decimal text).
    .addColumn("amount", "text", (col) => col.notNull())
    // The maker's approval transaction, and when the order was made.
    .addColumn("tx", "text", (col) => col.notNull())
    .addColumn("created_at", timestamp(db), (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull())
    .addColumn("sweep_tx", "text")
    .addColumn("block_number", int64(db))
    // Wei received for the tokens, the USD value and the ETH/USD price at the sweep.
    .addColumn("eth_amount", "text")
    .addColumn("usd_value", decimal(db))
    .addColumn("eth_price", decimal(db))
    .addColumn("swept_at", timestamp(db))
    .addForeignKeyConstraint("dust_orders_token_fk", ["chain", "token"], "dust_tokens", ["chain", "address"])
    .addCheckConstraint("dust_orders_status_check", sql`status in ('open', 'swept', 'cancelled')`)
    .addCheckConstraint(
      "dust_orders_swept_check",
      sql`(status = 'swept') = (sweep_tx is not null and block_number is not null and eth_amount is not null
        and usd_value is not null and eth_price is not null and swept_at is not null)`,
    )
    .execute();
  await db.schema.createIndex("dust_orders_status").on("dust_orders").columns(["status", "created_at"]).execute();
  await db.schema.createIndex("dust_orders_maker").on("dust_orders").columns(["maker", "status"]).execute();
  await db.schema.createIndex("dust_orders_created").on("dust_orders").columns(["created_at", "id"]).execute();
}

/** Only for development: a released database is never migrated down. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("dust_orders").execute();
  await db.schema.dropTable("dust_prices").execute();
  await db.schema.dropTable("dust_tokens").execute();
}
