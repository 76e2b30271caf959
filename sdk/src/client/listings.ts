import type { operations } from "../generated/openapi.js";
import type { Exchange } from "./exchange.js";

/** The filters and page of GET /v1/kernel/tx: every one optional. */
export type TransactionListQuery = NonNullable<operations["listKernelTransactions"]["parameters"]["query"]>;
/** The filters and page of GET /v1/{chain}/account/{address}/txs. */
export type SafeTransactionListQuery = NonNullable<operations["listSafeTransactions"]["parameters"]["query"]>;

/**
 * Every item of a listing, page after page, following `nextCursor` until it is null. A page may hold fewer items than
 * its limit, even none, before the last (the service bounds the rows a filtered page reads), so only null ends it.
 */
export async function* itemsOf<T>(
  listPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await listPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** The app's own Kernel requests, newest first. */
export function transactionListingMethods(exchange: Exchange) {
  const listTransactions = (query: TransactionListQuery = {}) =>
    exchange.asApp((Authorization) =>
      exchange.api.GET("/v1/kernel/tx", { headers: { Authorization }, params: { query } }),
    );
  return {
    /** One page of the app's requests (filters: userId in any spelling, chain, status); pass `nextCursor` back. */
    listTransactions,
    /** Every request matching the filters, newest first, fetched a page at a time as the loop asks. */
    allTransactions: (query: Omit<TransactionListQuery, "cursor"> = {}) =>
      itemsOf((cursor) => listTransactions({ ...query, ...(cursor ? { cursor } : {}) })),
  };
}

/** A Safe's requests, newest first. */
export function safeListingMethods(exchange: Exchange) {
  const listTransactions = (target: { chain: string; address: string }, query: SafeTransactionListQuery = {}) =>
    exchange.asApp((Authorization) =>
      exchange.api.GET("/v1/{chain}/account/{address}/txs", {
        headers: { Authorization },
        params: { path: { chain: target.chain, address: target.address }, query },
      }),
    );
  return {
    /** One page of the Safe's requests (filter: status); pass `nextCursor` back. */
    listTransactions,
    /** Every request of the Safe matching the filter, newest first, a page at a time. */
    allTransactions: (
      target: { chain: string; address: string },
      query: Omit<SafeTransactionListQuery, "cursor"> = {},
    ) => itemsOf((cursor) => listTransactions(target, { ...query, ...(cursor ? { cursor } : {}) })),
  };
}
