import type { AccountType } from "../identity/walletAddress";
import type { TxStatus } from "./txRecord";

/**
 * The most requests one page of a listing reads, whether its filters keep them or not. A filter its index does not
 * cover (a chain, a status) could otherwise make one page read an app's whole history; past this a page ends short,
 * even empty, and its cursor goes on from the last request read (docs/transactions.md, "Listing requests").
 */
export const LIST_SCAN_ROWS = 1000;

/** A place in a listing, newest first: the request last given; the next page holds the ones after it. */
export interface TxListPosition {
  readonly createdAt: string;
  readonly id: string;
}

/** Which part of a listing one read covers. */
export interface TxListWindow {
  /** Only requests after this place: older, or as old with a smaller id. */
  readonly after: TxListPosition | undefined;
  /** The most requests the filters keep to return. */
  readonly limit: number;
  /** The most requests to read for them, kept or not (LIST_SCAN_ROWS). */
  readonly scan: number;
}

/**
 * What one read of a listing found, newest first: the requests its filters kept (at most `limit`), and the last one
 * it read if it read `scan` of them (the listing goes on after it).
 */
export interface TxListRead<R> {
  readonly records: readonly R[];
  readonly scannedTo: TxListPosition | undefined;
}

/** An app's wallet requests of one account type, newest first; each filter optional. */
export interface WalletTxListQuery extends TxListWindow {
  readonly appId: string;
  readonly accountType: AccountType;
  /** The canonical user id. */
  readonly userId: string | undefined;
  readonly chain: string | undefined;
  readonly status: TxStatus | undefined;
}
