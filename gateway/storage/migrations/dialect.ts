import { type ColumnDataType, type Kysely, PostgresAdapter } from "kysely";

/**
 * What a migration needs to know of the database it runs on. SQLite stays the reference: on it every migration
 * still emits the SQL it always did; on PostgreSQL the few types and statements that differ are swapped.
 */
export function isPostgres(db: Pick<Kysely<unknown>, "getExecutor">): boolean {
  // The adapter is how Kysely itself tells dialects apart (getExecutor is public in the typings, marked internal).
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A 64-bit integer (gas, sums of gas, nonces, block numbers, minutes, sequence numbers): SQLite's `integer` is 64-bit,
 * PostgreSQL's is 32-bit, so there it is `bigint` (read back as a JavaScript number by the pool's type parser).
 */
export function int64(db: Kysely<unknown>): ColumnDataType {
  return isPostgres(db) ? "bigint" : "integer";
}

/**
 * A point in time. SQLite has no time type: ISO-8601 text from `toISOString()` (UTC, milliseconds), which sorts in
 * time order. PostgreSQL: `timestamptz`, read back as that same text by the pool's type parser (postgresKysely.ts).
 */
export function timestamp(db: Kysely<unknown>): ColumnDataType {
  return isPostgres(db) ? "timestamptz" : "text";
}

/**
 * A decimal amount of money the service handles as a JavaScript number (a USD value, a USD price). SQLite: `real`, as
 * it always was. PostgreSQL: `numeric`, never a float (issue 20); read back as decimal text, which the repository
 * turns into the same number (a number's shortest decimal form is stored exactly and parses back to it).
 */
export function decimal(db: Kysely<unknown>): ColumnDataType {
  return isPostgres(db) ? "numeric" : "real";
}
