import { DatabaseError } from "pg";

/**
 * SQLSTATE codes that come from the server's state, not from the statement
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html): class 08 connection exceptions, class 53
 * insufficient resources (disk full, out of memory, too many connections), 57P01-57P03 shutting down or starting up,
 * 25006 a read-only transaction (a standby, or a database set read-only), 40001 and 40P01 a serialization failure or
 * a deadlock (another writer won; the transaction was rolled back), 55P03 a lock not available.
 */
const UNAVAILABLE_STATES = /^(08...|53...|57P0[1-3]|25006|40001|40P01|55P03)$/;

/** Node's socket errors when the server cannot be reached or drops the connection. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "EPIPE"]);

/** pg's own errors for a lost or never-made connection: they carry no code, only these messages. */
const POOL_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect)/;

/** Whether pg failed because the database cannot serve the request right now (a retry may succeed). */
export function isPostgresUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseError) return UNAVAILABLE_STATES.test(error.code ?? "");
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && SOCKET_CODES.has(code)) || POOL_MESSAGES.test(error.message);
}
