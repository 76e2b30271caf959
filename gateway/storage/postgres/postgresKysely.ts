import { Kysely, PostgresDialect } from "kysely";
import { Pool, TypeOverrides } from "pg";
import type { DatabaseSchema } from "../schema";

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

/** Kysely over a pg pool for `url`; the caller migrates it, and `destroy()` ends the pool. */
export function postgresKysely(url: string): Kysely<DatabaseSchema> {
  const types = new TypeOverrides();
  types.setTypeParser(INT8, parseBigint);
  // Read committed whatever the database's default: a transaction that waited for a lock (`lockKeys`, `for update`)
  // must read what the holder committed, and a repeatable-read snapshot taken before the wait would not.
  const pool = new Pool({ connectionString: url, types, options: "-c default_transaction_isolation=read\\ committed" });
  // A connection that drops (the server restarted) emits `error`, which ends the process if nobody listens: on the
  // pool for an idle one, on the client for one a query holds (the pool listens only while it is idle). The query in
  // flight fails with the same error where it is awaited; pg discards the connection and the next query opens another.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}
