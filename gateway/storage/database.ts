import BetterSqlite3 from "better-sqlite3";
import { Kysely } from "kysely";
import path from "node:path";
import { redactDatabaseLocation, withoutPassword } from "../config/databaseSetting";
import { runMigrations } from "./migrations";
import { makePrivateDirectory, makePrivateFile, narrowToOwner } from "../crypto/privateFiles";
import type { DatabaseSchema } from "./schema";
import { isPostgresUrl, postgresKysely } from "./sql/dialect/postgresConnection";
import { IdwalletSqliteDialect, withStatementCache } from "./sql/dialect/sqliteConnection";

/** An open, fully migrated database and the way to close it. */
export interface Database {
  readonly db: Kysely<DatabaseSchema>;
  close(): Promise<void>;
}

/** Paths better-sqlite3 treats as a private database that has no file (and so no directory to create). */
const IN_MEMORY = new Set([":memory:", ""]);

/**
 * Opens (creating if needed) the SQLite database at `file` (`:memory:` for tests), applies every pending
 * migration, and only then returns it: the service never runs against an old schema (design §6).
 * A database it creates is private: its directory 0700, the file 0600, and so its -wal and -shm, which SQLite creates
 * with the database file's mode. An existing one open to group or others is narrowed to 0600, -wal and -shm included.
 * A `postgres://` URL opens that PostgreSQL database instead, migrated the same way.
 */
export async function openDatabase(file: string): Promise<Database> {
  if (isPostgresUrl(file)) return openPostgres(file);
  if (!IN_MEMORY.has(file)) {
    makePrivateDirectory(path.dirname(path.resolve(file)));
    makePrivateFile(file);
    for (const companion of [`${file}-wal`, `${file}-shm`]) narrowToOwner(companion);
  }
  const sqlite = new BetterSqlite3(file);
  try {
    // WAL lets readers proceed during a write. FULL syncs the WAL on every commit, so a 2xx survives an OS
    // crash or power loss too ("accepted means durable", design §1.4); the write volume makes it cheap.
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = FULL");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("busy_timeout = 5000");
    // Deleted and overwritten content is zeroed, not left in free pages: a secret sealed in place (or a code used)
    // leaves no plain copy behind in the file.
    sqlite.pragma("secure_delete = ON");
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = new Kysely<DatabaseSchema>({
    dialect: new IdwalletSqliteDialect({ database: withStatementCache(sqlite) }),
  });
  const close = async (): Promise<void> => {
    await db.destroy();
    // destroy() only closes a handle Kysely has used; close it here in case it never ran a query.
    if (sqlite.open) sqlite.close();
  };
  try {
    await runMigrations(db);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, close };
}

/**
 * The PostgreSQL database at `url`, migrated before it is returned like a SQLite one. A failure to reach or migrate it
 * names the database without its password (the error is logged or printed at start-up).
 */
async function openPostgres(url: string): Promise<Database> {
  const db = postgresKysely(url);
  const close = () => db.destroy();
  try {
    await runMigrations(db);
  } catch (error) {
    await close();
    const reason = withoutPassword(error instanceof Error ? error.message : String(error), url);
    throw new Error(`PostgreSQL database ${redactDatabaseLocation(url)}: ${reason}`);
  }
  return { db, close };
}
