import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import type { DatabaseSchema, TransactionsTable } from "../schema";
import type { TxListRead, TxListWindow, WalletTxListQuery } from "../../transactions/txListing";
import {
  type SafeTxRecord,
  type TxRecord,
  type WalletTxRecord,
  isSafeRecord,
  isWalletRecord,
} from "../../transactions/txRecord";
import type { SafeTxListQuery } from "../../safe/model/safesRepository";
import { toRecord } from "./transactionRows";

/** A column a listing compares with a value. */
type ListedColumn = "app_id" | "account_type" | "user_id" | "chain" | "sender" | "status";
/** Column = value, each of a listing's conditions. */
export type ListingConditions = readonly (readonly [ListedColumn, string])[];

/**
 * What a listing of requests reads: `seek`, the equalities its index (migration 022) starts with, so its rows come
 * newest first from the index; `keep`, the filters the index does not cover, tested row by row.
 */
export interface ListingScope {
  readonly seek: ListingConditions;
  readonly keep: ListingConditions;
}

type ListedRow = Selectable<TransactionsTable> & { place?: number | string; kept?: number | string };

const NEWEST_FIRST = sql`order by created_at desc, id desc`;

/**
 * The statement of one read of a listing, newest first after `window.after`. Without `keep` filters it walks the
 * index for `limit` rows. With them, it reads at most `scan` rows (a page's bound of work) and answers those kept
 * (`kept` 1) and the last one read (`place` = scan), kept or not: where the next read goes on, in the same snapshot.
 */
export function listingStatement(scope: ListingScope, window: TxListWindow): RawBuilder<ListedRow> {
  const after = window.after && sql`(created_at, id) < (${window.after.createdAt}, ${window.after.id})`;
  const seek = sql.join([...scope.seek.map(equals), ...(after ? [after] : [])], sql` and `);
  const read = sql`select * from transactions where ${seek} ${NEWEST_FIRST}`;
  if (scope.keep.length === 0) return sql<ListedRow>`${read} limit ${window.limit}`;
  const kept = sql.join(scope.keep.map(equals), sql` and `);
  return sql<ListedRow>`
    select * from (
      select scanned.*, row_number() over (${NEWEST_FIRST}) as place,
        case when ${kept} then 1 else 0 end as kept
      from (${read} limit ${window.scan}) as scanned
    ) as numbered
    where kept = 1 or place = ${window.scan}
    ${NEWEST_FIRST}
    limit ${window.limit + 1}`;
}

const ACCOUNT_TYPES: ReadonlySet<string> = new Set(["kernel", "base", "safe"]);

/**
 * `column = value`, the value a parameter; but the account type is written into the statement: a partial index (the
 * Safe listing's, migration 022) is only used where the statement itself says it reads that index's rows.
 */
function equals([column, value]: readonly [ListedColumn, string]) {
  if (column !== "account_type") return sql`${sql.ref(column)} = ${value}`;
  if (!ACCOUNT_TYPES.has(value)) throw new Error(`not an account type: ${value}`);
  return sql`account_type = ${sql.lit(value)}`;
}

/** One read of a listing: the requests kept, at most `window.limit`, and the last one read if it read `scan`. */
export async function readListing(
  db: Kysely<DatabaseSchema>,
  scope: ListingScope,
  window: TxListWindow,
): Promise<TxListRead<TxRecord>> {
  const { rows } = await listingStatement(scope, window).execute(db);
  const last = rows.find((row) => row.place !== undefined && Number(row.place) === window.scan);
  return {
    records: rows
      .filter((row) => row.kept === undefined || Number(row.kept) === 1)
      .slice(0, window.limit)
      .map(toRecord),
    scannedTo: last && { createdAt: last.created_at, id: last.id },
  };
}

/** A condition for each filter given. */
const given = (...pairs: (readonly [ListedColumn, string | undefined])[]): ListingConditions =>
  pairs.filter((pair): pair is [ListedColumn, string] => pair[1] !== undefined);

/** A wallet listing's scope: the app's index, or its user id's; chain and status tested row by row. */
export const walletScope = (query: WalletTxListQuery): ListingScope => ({
  seek: given(["app_id", query.appId], ["account_type", query.accountType], ["user_id", query.userId]),
  keep: given(["chain", query.chain], ["status", query.status]),
});

/** A Safe listing's scope: the index of the app's requests of that account; status tested row by row. */
export const safeScope = (query: SafeTxListQuery): ListingScope => ({
  seek: given(["app_id", query.appId], ["account_type", "safe"], ["chain", query.chain], ["sender", query.address]),
  keep: given(["status", query.status]),
});

/** TransactionsRepository.listWalletRequests. */
export async function listWalletRequests(
  db: Kysely<DatabaseSchema>,
  query: WalletTxListQuery,
): Promise<TxListRead<WalletTxRecord>> {
  const read = await readListing(db, walletScope(query), query);
  return { ...read, records: read.records.filter(isWalletRecord) };
}

/** SafesRepository.listRequests. */
export async function listSafeRequests(
  db: Kysely<DatabaseSchema>,
  query: SafeTxListQuery,
): Promise<TxListRead<SafeTxRecord>> {
  const read = await readListing(db, safeScope(query), query);
  return { ...read, records: read.records.filter(isSafeRecord) };
}
