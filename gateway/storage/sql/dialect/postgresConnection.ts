import { Kysely, PostgresDialect } from "kysely";
import { Pool, TypeOverrides } from "pg";
import type { DatabaseSchema } from "../../schema";

/** A PostgreSQL connection string (what `openDatabase` opens as PostgreSQL instead of a SQLite file). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

/** pg's type id of `bigint` (int8), which `count(*)` also returns. */
const INT8 = 20;

/**
 * pg reads a bigint back as a string, since it may pass 2^53. The repositories expect numbers (SQLite's 64-bit
 * integers read back as them), and no stored value (gas, a block number, a nonce, a minute) comes near 2^53, so a
 * bigint is a number here; one that does not fit throws instead of losing digits.
 */
function parseBigint(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} is beyond JavaScript's safe integers`);
  return value;
}

/** pg's type id of `timestamptz`, every timestamp column's type on PostgreSQL (migrations/dialect.ts `timestamp`). */
const TIMESTAMPTZ = 1184;

/**
 * pg reads a timestamptz back as a `Date`; the repositories expect the ISO-8601 text SQLite stores (`toISOString()`:
 * UTC, milliseconds, `Z`), so it is that text here, through pg's own parser (any offset, any number of fraction
 * digits: microseconds, which the service never writes, are cut to milliseconds as `Date` does). `infinity` and
 * dates beyond `Date`'s range throw instead of becoming a wrong time.
 */
function timestamptzAsIso(parseDate: (text: string) => unknown): (text: string) => string {
  return (text) => {
    const date = parseDate(text);
    if (!(date instanceof Date) || Number.isNaN(date.getTime()))
      throw new RangeError(`timestamptz ${text} is no time a JavaScript Date holds`);
    return date.toISOString();
  };
}

/** Kysely over a pg pool for `url`; the caller migrates it, and `destroy()` ends the pool. */
export function postgresKysely(url: string): Kysely<DatabaseSchema> {
  // The pool's own parsers, not pg's global ones: another pg user in the process keeps its types.
  const types = new TypeOverrides();
  types.setTypeParser(INT8, parseBigint);
  // @types/pg types the parser it returns as taking a number; pg calls it with the column's text.
  const parseDate = types.getTypeParser(TIMESTAMPTZ, "text") as unknown as (text: string) => unknown;
  types.setTypeParser(TIMESTAMPTZ, timestamptzAsIso(parseDate));
  // Read committed whatever the database's default: a transaction that waited for a lock (`lockKeys`, `for update`)
  // must read what the holder committed, and a repeatable-read snapshot taken before the wait would not. The session
  // is in UTC with ISO dates, whatever the server's settings: timestamps come as `…+00` text to the parser, and SQL
  // that takes a date or an hour of one (none does today) takes UTC's, as SQLite's functions do.
  const options = "-c default_transaction_isolation=read\\ committed -c TimeZone=UTC -c DateStyle=ISO";
  const pool = new Pool({ connectionString: url, types, options });
  // A connection that drops (the server restarted) emits `error`, which ends the process if nobody listens: on the
  // pool for an idle one, on the client for one a query holds (the pool listens only while it is idle). The query in
  // flight fails with the same error where it is awaited; pg discards the connection and the next query opens another.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}
