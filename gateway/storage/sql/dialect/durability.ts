import { type Kysely, type Transaction, sql } from "kysely";
import type { DatabaseSchema } from "../../schema";
import { isPostgres } from "./dialectOf";

/**
 * Runs `work` in a transaction whose commit does not wait for the disk: for writes a power loss may take back without
 * harm (a rate window's count), which would otherwise pay a synced commit each, as accepted requests must (design
 * §1.4). Atomicity and consistency are kept either way. SQLite (WAL): `synchronous = NORMAL` for this transaction
 * alone; its commit becomes durable with the next synced one (the WAL is synced whole, in order). The connection is
 * held throughout, so nothing else commits meanwhile, and is set back to FULL (openDatabase) after. PostgreSQL:
 * `synchronous_commit = off` for the transaction (SET LOCAL).
 */
export function unsyncedTransaction<T>(
  db: Kysely<DatabaseSchema>,
  work: (trx: Transaction<DatabaseSchema>) => Promise<T>,
): Promise<T> {
  if (isPostgres(db)) {
    return db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  }
  return db.connection().execute(async (connection) => {
    await sql`pragma synchronous = normal`.execute(connection);
    try {
      return await connection.transaction().execute(work);
    } finally {
      await sql`pragma synchronous = full`.execute(connection);
    }
  });
}
