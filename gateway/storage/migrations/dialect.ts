import type { ColumnDataType, Kysely } from "kysely";
import { isPostgres } from "../sql/dialect/dialectOf";

/**
 * What a migration needs to know of the database it runs on. SQLite stays the reference: on it every migration
 * still emits the SQL it always did; on PostgreSQL the few types and statements that differ are swapped (which
 * database it is: the dialect module's `isPostgres`, re-exported for the migrations' DDL).
 */
export { isPostgres };

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
