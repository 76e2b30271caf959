import { redactDatabaseLocation } from "../../gateway/config/databaseSetting";
import { copyDatabase, DatabaseCopyRefused } from "../../gateway/storage/databaseCopy";
import type { Database } from "../../gateway/storage/database";
import type { DbCommand } from "./dbArgs";
import { formatTable, type AdminOutput } from "./commands";

/** Opens (and migrates) a database by file or URL. */
type Open = (location: string) => Promise<Database>;

/**
 * Runs one database command. `db copy`: the SQLite database `source` into the PostgreSQL database of `--to` (opened and
 * migrated here, so it needs only to exist), printing each table's row count. Resolves false when refused.
 */
export async function runDbCommand(
  command: DbCommand,
  source: string,
  open: Open,
  output: AdminOutput,
): Promise<boolean> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    output.err(
      `Error: db copy copies a SQLite database, and the configured one is ${redactDatabaseLocation(source)}: ` +
        "name the SQLite file with --db or DATABASE_PATH (and unset DATABASE_URL)",
    );
    return false;
  }
  const from = await open(source);
  try {
    const to = await open(command.to);
    try {
      const copied = await copyDatabase(from.db, to.db);
      output.out(
        `Copied ${source} into ${redactDatabaseLocation(command.to)}; row counts match:\n` +
          formatTable(
            ["table", "rows"],
            copied.map(({ table, rows }) => [table, String(rows)]),
          ),
      );
      return true;
    } catch (error) {
      if (!(error instanceof DatabaseCopyRefused)) throw error;
      output.err(`Error: nothing copied: ${error.message}`);
      return false;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
