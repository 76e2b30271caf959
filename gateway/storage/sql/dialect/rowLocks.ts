import { type Kysely, type RawBuilder, type SelectQueryBuilder, type Transaction, sql } from "kysely";
import { isPostgres } from "./dialectOf";

/**
 * Row locks. PostgreSQL locks rows: a read that decides a write locks what it read until its transaction ends. SQLite
 * has no row locks (no `for update`): every write transaction begins `immediate` (sqliteConnection.ts) and holds the
 * whole database, so the same reads need no lock there. These helpers say what to lock; on SQLite they add nothing.
 */

/**
 * How a read locks the rows it reads: `update`, a row about to be changed (others wait to change or lock it);
 * `share`, a row that must not change under the transaction (others may share it); `keyShare`, a row that must not
 * be deleted nor have its key changed (updates of its other columns go on).
 */
export type RowLock = "update" | "share" | "keyShare";

/** Which rows a lock takes and what it does with rows another transaction holds. */
export interface RowLockOptions {
  /** Lock only this table (or alias) of a join's rows. */
  readonly of?: string;
  /** Skip rows another transaction has locked instead of waiting for them (a claim: take the next one). */
  readonly skipLocked?: boolean;
}

// Any select's builder: the lock adds a clause and changes nothing of its rows' type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/** For `query.$call(...)`: the select locks the rows it reads (`lock`), where the database locks rows. */
export function lockRows(
  db: Pick<Kysely<unknown>, "getExecutor">,
  lock: RowLock,
  options: RowLockOptions = {},
): <Q extends AnySelect>(query: Q) => Q {
  if (!isPostgres(db)) return (query) => query;
  return <Q extends AnySelect>(query: Q): Q => {
    const locked =
      lock === "update"
        ? query.forUpdate(options.of)
        : lock === "share"
          ? query.forShare(options.of)
          : query.forKeyShare(options.of);
    return (options.skipLocked ? locked.skipLocked() : locked) as Q;
  };
}

/** The same lock as a clause at the end of a select written as SQL text: empty where the database locks no rows. */
export function rowLockClause(
  db: Pick<Kysely<unknown>, "getExecutor">,
  lock: RowLock,
  options: RowLockOptions = {},
): RawBuilder<unknown> {
  if (!isPostgres(db)) return sql``;
  const strength = lock === "update" ? sql`for update` : lock === "share" ? sql`for share` : sql`for key share`;
  const of = options.of === undefined ? sql`` : sql` of ${sql.id(options.of)}`;
  return sql`${strength}${of}${options.skipLocked ? sql` skip locked` : sql``}`;
}

/**
 * Locks for update the rows `select` reads, now, before the statements that follow (a deadlock is avoided by taking
 * locks in one order everywhere); does nothing, and reads nothing, where the database locks no rows.
 */
export async function lockRowsFirst<DB>(
  trx: Transaction<DB>,
  select: (trx: Transaction<DB>) => AnySelect,
): Promise<void> {
  if (!isPostgres(trx)) return;
  await select(trx).forUpdate().execute();
}

/**
 * Bounds how long the transaction may sit idle holding its row locks: past `ms` without a statement, PostgreSQL ends
 * the session, rolling the transaction back and freeing its locks (a frozen holder cannot hold them for as long as it
 * stays frozen). First thing in the transaction. SQLite: nothing (another process waits for the write lock, then
 * fails busy; no row of it is held apart).
 */
export async function boundIdleInTransaction(trx: Pick<Kysely<unknown>, "getExecutor">, ms: number): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select set_config('idle_in_transaction_session_timeout', ${String(ms)}, true)`.execute(trx);
}
