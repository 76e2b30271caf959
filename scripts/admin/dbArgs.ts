import { isPostgresConnectionUrl } from "../../gateway/config/databaseSetting";
import { UsageError } from "./usageError";

/** Where the database lives when neither `--db` nor DATABASE_URL, DATABASE_PATH or DATA_DIR says otherwise (relative to the cwd). */
export const DEFAULT_DATABASE_PATH = "data/idwallet.sqlite";

/** Usage lines of the database commands (part of the admin CLI's usage text). */
export const DB_USAGE = `  db copy --to <postgres-url>        copy the SQLite database (--db or DATABASE_PATH) into an empty, new PostgreSQL
                                     database: every table in one transaction, row counts checked and printed; stop
                                     the service first, then start it with DATABASE_URL set to the copy`;

/** The option names of the database commands, with their parseArgs types. */
export const DB_OPTIONS = { to: { type: "string" } } as const;

/** The options the database commands read. */
export interface DbOptions {
  to?: string;
}

/** One database admin action, validated. */
export type DbCommand = { readonly kind: "copy"; readonly to: string };

/** A URL as the database setting: a postgres:// URL with a host (the message never repeats it: it may hold a password). */
function postgresUrl(text: string, name: string): string {
  if (!isPostgresConnectionUrl(text)) throw new UsageError(`${name} must be a postgres:// URL with a host`);
  return text;
}

/**
 * The database the CLI opens: `--db` (a file or a postgres:// URL), else the service's (`settingsDatabase`: DATABASE_URL
 * or DATABASE_PATH from the environment or the configuration file, else `<DATA_DIR>/idwallet.sqlite`).
 */
export function databaseOf(db: string | undefined, settingsDatabase: string): string {
  if (db === undefined) return settingsDatabase;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(db) ? postgresUrl(db, "--db") : db;
}

/** Reads `db <action> …` into a command. */
export function parseDbCommand(action: string | undefined, rest: readonly string[], values: DbOptions): DbCommand {
  if (action !== "copy")
    throw new UsageError(action === undefined ? '"db" needs copy' : `unknown command "db ${action}"`);
  if (rest.length > 0) throw new UsageError(`"db copy" takes 0 argument(s), got ${rest.length}`);
  if (values.to === undefined) throw new UsageError('"db copy" needs --to <postgres-url>');
  return { kind: "copy", to: postgresUrl(values.to, "--to") };
}
