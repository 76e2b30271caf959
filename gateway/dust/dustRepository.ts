import type { DustOrder, DustPriceSource, DustToken } from "./dustModel";
/** Thrown when an order cannot change as asked (unknown, or no longer open). */
export class DustOrderStateError extends Error {
  override readonly name = "DustOrderStateError";
}

/** The dust interface's token lists, price sources and orders. */
export interface DustRepository {
  /** Adds or updates a token of a chain's list. */
  putToken(token: DustToken): Promise<void>;
  tokens(chain: string): Promise<DustToken[]>;
  removeToken(chain: string, address: string): Promise<boolean>;
  /** Sets where an asset's price comes from (replacing the earlier source). */
  putPrice(source: { chain: string; asset: string } & ({ usd: number } | { feed: string })): Promise<void>;
  prices(chain: string): Promise<DustPriceSource[]>;
  /** Records a new open order. */
  createOrder(order: Omit<DustOrder, "id" | "status" | "sweep">): Promise<DustOrder>;
  /** Records an open order's sweep; throws DustOrderStateError if it is not open. */
  settleOrder(id: string, sweep: NonNullable<DustOrder["sweep"]>): Promise<DustOrder>;
  /** Cancels an open order; throws DustOrderStateError if it is not open. */
  cancelOrder(id: string): Promise<DustOrder>;
  findOrder(id: string): Promise<DustOrder | undefined>;
  /** Orders, newest first: every open and swept one, or only `status`, or one maker's (`maker`, any chain). */
  orders(filter: { status?: "open" | "swept"; maker?: string; limit: number; offset: number }): Promise<DustOrder[]>;
}
