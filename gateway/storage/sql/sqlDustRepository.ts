import { randomUUID } from "node:crypto";
import type { Kysely, Selectable, Updateable } from "kysely";
import type { DatabaseSchema, DustOrdersTable, DustPricesTable, DustTokensTable } from "../schema";
import { type DustOrder, type DustPriceSource, type DustToken } from "../../dust/dustModel";
import { DustOrderStateError, type DustRepository } from "../../dust/dustRepository";

const toToken = (row: Selectable<DustTokensTable>): DustToken => ({
  chain: row.chain,
  address: row.address,
  symbol: row.symbol,
  decimals: row.decimals,
  listing: row.listing,
});

const toPrice = (row: Selectable<DustPricesTable>): DustPriceSource =>
  row.feed !== null
    ? { chain: row.chain, asset: row.asset, feed: row.feed, updatedAt: row.updated_at }
    : { chain: row.chain, asset: row.asset, usd: Number(row.usd), updatedAt: row.updated_at };

function toOrder(row: Selectable<DustOrdersTable>): DustOrder {
  const base = {
    id: row.id,
    chain: row.chain,
    maker: row.maker,
    token: row.token,
    amount: BigInt(row.amount),
    tx: row.tx,
    createdAt: row.created_at,
    status: row.status,
  };
  if (row.status !== "swept") return base;
  return {
    ...base,
    sweep: {
      tx: row.sweep_tx!,
      blockNumber: row.block_number!,
      ethAmount: BigInt(row.eth_amount!),
      usdValue: Number(row.usd_value),
      ethPrice: Number(row.eth_price),
      at: row.swept_at!,
    },
  };
}

/** DustRepository over SQLite and PostgreSQL. */
export class SqlDustRepository implements DustRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  async putToken(token: DustToken): Promise<void> {
    const row = { ...token, created_at: this.clock().toISOString() };
    await this.db
      .insertInto("dust_tokens")
      .values(row)
      .onConflict((oc) =>
        oc.columns(["chain", "address"]).doUpdateSet({
          symbol: token.symbol,
          decimals: token.decimals,
          listing: token.listing,
        }),
      )
      .execute();
  }

  async tokens(chain: string): Promise<DustToken[]> {
    const rows = await this.db
      .selectFrom("dust_tokens")
      .selectAll()
      .where("chain", "=", chain)
      .orderBy("symbol")
      .execute();
    return rows.map(toToken);
  }

  async removeToken(chain: string, address: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("dust_tokens")
      .where("chain", "=", chain)
      .where("address", "=", address)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async putPrice(source: { chain: string; asset: string } & ({ usd: number } | { feed: string })): Promise<void> {
    const row = {
      chain: source.chain,
      asset: source.asset,
      usd: "usd" in source ? String(source.usd) : null,
      feed: "feed" in source ? source.feed : null,
      updated_at: this.clock().toISOString(),
    };
    await this.db
      .insertInto("dust_prices")
      .values(row)
      .onConflict((oc) =>
        oc.columns(["chain", "asset"]).doUpdateSet({ usd: row.usd, feed: row.feed, updated_at: row.updated_at }),
      )
      .execute();
  }

  async prices(chain: string): Promise<DustPriceSource[]> {
    const rows = await this.db.selectFrom("dust_prices").selectAll().where("chain", "=", chain).execute();
    return rows.map(toPrice);
  }

  async createOrder(order: Omit<DustOrder, "id" | "status" | "sweep">): Promise<DustOrder> {
    const row = {
      id: randomUUID(),
      chain: order.chain,
      maker: order.maker,
      token: order.token,
      amount: order.amount.toString(),
      tx: order.tx,
      created_at: order.createdAt,
      status: "open",
      sweep_tx: null,
      block_number: null,
      eth_amount: null,
      usd_value: null,
      eth_price: null,
      swept_at: null,
    } satisfies Selectable<DustOrdersTable>;
    await this.db.insertInto("dust_orders").values(row).execute();
    return toOrder(row);
  }

  async settleOrder(id: string, sweep: NonNullable<DustOrder["sweep"]>): Promise<DustOrder> {
    return this.changeOpen(id, {
      status: "swept",
      sweep_tx: sweep.tx,
      block_number: sweep.blockNumber,
      eth_amount: sweep.ethAmount.toString(),
      usd_value: sweep.usdValue,
      eth_price: sweep.ethPrice,
      swept_at: sweep.at,
    });
  }

  async cancelOrder(id: string): Promise<DustOrder> {
    return this.changeOpen(id, { status: "cancelled" });
  }

  private async changeOpen(id: string, changes: Updateable<DustOrdersTable>): Promise<DustOrder> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable("dust_orders")
        .set(changes)
        .where("id", "=", id)
        .where("status", "=", "open")
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) throw new DustOrderStateError(`no open order ${id}`);
      return toOrder(await trx.selectFrom("dust_orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow());
    });
  }

  async findOrder(id: string): Promise<DustOrder | undefined> {
    const row = await this.db.selectFrom("dust_orders").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toOrder(row);
  }

  async orders(filter: {
    status?: "open" | "swept";
    maker?: string;
    limit: number;
    offset: number;
  }): Promise<DustOrder[]> {
    let query = this.db.selectFrom("dust_orders").selectAll();
    query = filter.status ? query.where("status", "=", filter.status) : query.where("status", "in", ["open", "swept"]);
    if (filter.maker) query = query.where("maker", "=", filter.maker);
    const rows = await query
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return rows.map(toOrder);
  }
}
