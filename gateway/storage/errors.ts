/**
 * Storage-level errors. They carry no HTTP status: the HTTP layer maps them to problem details
 * (conventions 6), and the admin CLI maps them to exit codes.
 */

/** The record a caller named by id does not exist. */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";

  constructor(
    /** What kind of record was looked up, e.g. "app". */
    readonly entity: string,
    readonly id: string,
  ) {
    super(`${entity} ${JSON.stringify(id)} not found`);
  }
}

/** A migration failed at start-up; the service must not run against a half-known schema. */
export class MigrationError extends Error {
  override readonly name = "MigrationError";

  constructor(
    /** The migration that failed, or undefined when the migrator failed before running any. */
    readonly migrationName: string | undefined,
    cause: unknown,
  ) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const where = migrationName ? `migration "${migrationName}"` : "the migrator";
    super(`Database migration failed in ${where}: ${detail}. No pending migration was applied.`, { cause });
  }
}

/**
 * Whether `error` says the database cannot serve the request now (read-only, full, failing I/O, locked by another
 * writer, cannot be opened or reached) rather than that the request is wrong (each dialect's codes: sql/dialect/).
 */
export { isStorageUnavailable } from "./sql/dialect/unavailable";
