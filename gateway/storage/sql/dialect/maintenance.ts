import { type Kysely, sql } from "kysely";
import { isPostgres } from "./dialectOf";

/**
 * Leaves no old version of `table`'s rewritten rows behind in the database's files, as far as each database allows.
 * SQLite: the WAL holds the old pages until a checkpoint, which a quiet service may not reach for long: they are
 * copied into the file (zeroed in place, `secure_delete`) and the WAL emptied. PostgreSQL: an update leaves the old
 * row version in the table until vacuum, which prunes it from its page (outside a transaction: call this after the
 * commit); vacuum cannot prune one an older snapshot still sees, and the WAL keeps the old row until its segment is
 * recycled (see docs/postgres.md).
 */
export async function dropOldRowVersions(db: Pick<Kysely<unknown>, "getExecutor">, table: string): Promise<void> {
  if (isPostgres(db)) await sql`vacuum ${sql.table(table)}`.execute(db);
  else await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
}
