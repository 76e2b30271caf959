import type { ListCursors } from "./listCursor";
import { LIST_SCAN_ROWS, type TxListPosition, type TxListRead, type TxListWindow } from "./txListing";

/** What an app asks of a listing: how many requests a page, and the `nextCursor` of the page before, if any. */
export interface PageRequest {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/** A page of a listing as the API answers it: its requests, and the cursor of the next page (null: none follows). */
export interface ListedPage<R> {
  readonly records: readonly R[];
  readonly nextCursor: string | null;
}

/**
 * One page of the listing `scope` names (the app and every filter: a cursor is good for that listing alone): its
 * place read from the cursor (400 INVALID_CURSOR), its requests read by `read` (one more than the page, to know
 * whether more follow), and the cursor of the next page.
 */
export async function readPage<R extends TxListPosition>(
  cursors: ListCursors,
  scope: readonly unknown[],
  page: PageRequest,
  read: (window: TxListWindow) => Promise<TxListRead<R>>,
): Promise<ListedPage<R>> {
  const after = page.cursor === undefined ? undefined : cursors.read(scope, page.cursor);
  const window = { after, limit: page.limit + 1, scan: Math.max(LIST_SCAN_ROWS, page.limit + 1) };
  const { records, next } = pageOf(await read(window), page.limit);
  return { records, nextCursor: next ? cursors.issue(scope, next) : null };
}

/**
 * The page of `limit` requests from a read asked for `limit + 1`: a request beyond the page says that more follow
 * the page's last one; else the listing goes on from where the read stopped, if it stopped before the end.
 */
export function pageOf<R extends TxListPosition>(
  read: TxListRead<R>,
  limit: number,
): { records: readonly R[]; next: TxListPosition | undefined } {
  if (read.records.length <= limit) return { records: read.records, next: read.scannedTo };
  const records = read.records.slice(0, limit);
  const last = records.at(-1)!;
  return { records, next: { createdAt: last.createdAt, id: last.id } };
}
