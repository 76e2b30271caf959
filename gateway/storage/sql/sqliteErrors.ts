import BetterSqlite3 from "better-sqlite3";

/**
 * SQLite result codes, primary and extended (`SQLITE_READONLY_DBMOVED`, `SQLITE_IOERR_FSYNC`, `SQLITE_BUSY_TIMEOUT`,
 * ...), that come from the database's surroundings (file permissions, disk space, the disk, another writer's lock),
 * not from the statement: https://www.sqlite.org/rescode.html
 */
const UNAVAILABLE_CODES = /^SQLITE_(READONLY|FULL|IOERR|BUSY|CANTOPEN)(_|$)/;

/** Whether better-sqlite3 failed because the database cannot be written or read right now. */
export function isSqliteUnavailable(error: unknown): boolean {
  return error instanceof BetterSqlite3.SqliteError && UNAVAILABLE_CODES.test(error.code);
}
