/** DATABASE_URL and DATABASE_PATH: which database the service opens, and how to name it without its password. */
import { z } from "zod";

const POSTGRES_PROTOCOLS = new Set(["postgres:", "postgresql:"]);

/** The URL parsed, or undefined: never an exception, whose `input` would carry the password into a log. */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Whether `text` is a PostgreSQL connection URL with a host (libpq's URI form). */
export const isPostgresConnectionUrl = (text: string): boolean => {
  const url = parseUrl(text);
  return url !== undefined && POSTGRES_PROTOCOLS.has(url.protocol) && url.hostname !== "";
};

/** DATABASE_URL: a PostgreSQL database (`postgres://user:password@host:5432/name`); the message never echoes it. */
export const DatabaseUrl = z
  .string()
  .refine(isPostgresConnectionUrl, "a postgres:// URL with a host, such as postgres://idwallet:…@db.internal/idwallet");

/**
 * `location` fit to log or show in an error: a URL's password replaced by `***` (a URL that does not parse is not shown
 * at all, since where its password starts is unknown); a file path as it is.
 */
export function redactDatabaseLocation(location: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location;
  const url = parseUrl(location);
  if (!url) return "(a database URL that does not parse)";
  if (url.password !== "") url.password = "***";
  return url.toString();
}

/** `text` with every occurrence of `location`'s password replaced by `***` (for error messages that quote it). */
export function withoutPassword(text: string, location: string): string {
  const password = parseUrl(location)?.password;
  if (!password) return text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // A stray % in it: only the encoded form can appear.
  }
  return [password, decoded].reduce((out, secret) => out.split(secret).join("***"), text);
}

/** What the service opens: DATABASE_URL (PostgreSQL) when set, else the SQLite file at DATABASE_PATH. */
export const databaseLocation = (config: { databaseUrl?: string; databasePath?: string }): string =>
  config.databaseUrl ?? config.databasePath!;
