import BetterSqlite3 from "better-sqlite3";
import { DatabaseError } from "pg";

/**
 * Which failures mean the database cannot serve the request now (read-only, full, failing I/O, locked by another
 * writer, cannot be opened or reached) rather than that the request is wrong: the failed write was rolled back, and a
 * retry may succeed. Each database says so in its own codes.
 */

/**
 * SQLite result codes, primary and extended (`SQLITE_READONLY_DBMOVED`, `SQLITE_IOERR_FSYNC`, `SQLITE_BUSY_TIMEOUT`,
 * ...), that come from the database's surroundings (file permissions, disk space, the disk, another writer's lock),
 * not from the statement: https://www.sqlite.org/rescode.html
 */
const SQLITE_UNAVAILABLE_CODES = /^SQLITE_(READONLY|FULL|IOERR|BUSY|CANTOPEN)(_|$)/;

/**
 * SQLSTATE codes that come from the server's state, not from the statement
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html): class 08 connection exceptions, class 53
 * insufficient resources (disk full, out of memory, too many connections), 57P01-57P03 shutting down or starting up,
 * 25006 a read-only transaction (a standby, or a database set read-only), 40001 and 40P01 a serialization failure or
 * a deadlock (another writer won; the transaction was rolled back), 55P03 a lock not available.
 */
const POSTGRES_UNAVAILABLE_STATES = /^(08...|53...|57P0[1-3]|25006|40001|40P01|55P03)$/;

/** Node's socket errors when the server cannot be reached or drops the connection. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "EPIPE"]);

/** pg's own errors for a lost or never-made connection: they carry no code, only these messages. */
const POOL_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect)/;

/** Whether better-sqlite3 failed because the database cannot be written or read right now. */
function isSqliteUnavailable(error: unknown): boolean {
  return error instanceof BetterSqlite3.SqliteError && SQLITE_UNAVAILABLE_CODES.test(error.code);
}

/** Whether pg failed because the database cannot serve the request right now. */
function isPostgresUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseError) return POSTGRES_UNAVAILABLE_STATES.test(error.code ?? "");
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && SOCKET_CODES.has(code)) || POOL_MESSAGES.test(error.message);
}

/** Whether `error` says the database, SQLite or PostgreSQL, cannot serve the request now (see above). */
export const isStorageUnavailable = (error: unknown): boolean =>
  isSqliteUnavailable(error) || isPostgresUnavailable(error);
