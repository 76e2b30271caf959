import { type Kysely, PostgresAdapter } from "kysely";

/**
 * The dialect module: everything SQLite and PostgreSQL do differently that the SQL adapter needs, one concern a file
 * (opening a connection, row locks, key locks, durability, maintenance, which failures mean "unavailable"). The
 * repositories call these and never ask which database they run on; the migrations do (their DDL differs).
 */

/** Whether `db` runs on PostgreSQL (else SQLite), as Kysely itself tells dialects apart: by the adapter. */
export function isPostgres(db: Pick<Kysely<unknown>, "getExecutor">): boolean {
  // getExecutor is public in the typings, marked internal.
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
