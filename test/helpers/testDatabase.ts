import { sql } from "kysely";
import path from "node:path";
import { isPostgresConnectionUrl } from "../../gateway/config/databaseSetting";
import type { SecretsKeyring } from "../../gateway/crypto/secretsKeyring";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../gateway/storage/repositories";
import { freshPostgresDatabase } from "./postgresServer";

/**
 * TEST_DATABASE=postgres runs every service an e2e test starts on PostgreSQL (a fresh database on one throwaway server
 * per test process, started on first use); unset or `sqlite`, on a SQLite file in the service's data directory.
 */
export function testDatabase(): "sqlite" | "postgres" {
  const kind = process.env.TEST_DATABASE || "sqlite";
  if (kind !== "sqlite" && kind !== "postgres")
    throw new Error(`TEST_DATABASE must be sqlite or postgres, not ${kind}`);
  return kind;
}

/** Whether this run's services use PostgreSQL. */
export const onPostgres = (): boolean => testDatabase() === "postgres";

const postgresByDataDir = new Map<string, Promise<string>>();

/**
 * The database of a service keeping its data in `dataDir`: the SQLite file there, or (TEST_DATABASE=postgres) a
 * PostgreSQL database of its own, the same one for every start on that directory (a restart keeps its data).
 */
export function serviceDatabase(dataDir: string): Promise<string> {
  if (!onPostgres()) return Promise.resolve(path.join(dataDir, "idwallet.sqlite"));
  const key = path.resolve(dataDir);
  let url = postgresByDataDir.get(key);
  if (!url) {
    url = freshPostgresDatabase(path.basename(key));
    postgresByDataDir.set(key, url);
  }
  return url;
}

/** The environment setting naming `location` (a file or a postgres:// URL), as the service reads it. */
export const databaseEnv = (location: string): Record<string, string> =>
  isPostgresConnectionUrl(location) ? { DATABASE_URL: location } : { DATABASE_PATH: location };

/** The configuration override naming `location`, for a service started in the test's process. */
export const databaseSettings = (location: string): { databaseUrl: string } | { databasePath: string } =>
  isPostgresConnectionUrl(location) ? { databaseUrl: location } : { databasePath: location };

/**
 * The environment a local stack on `dataDir` gets for its database: none on SQLite (the stack's own file), DATABASE_URL
 * on PostgreSQL.
 */
export async function stackDatabaseEnv(dataDir: string): Promise<Record<string, string>> {
  return onPostgres() ? { DATABASE_URL: await serviceDatabase(dataDir) } : {};
}

/** Runs `use` on the service's repositories over the database at `location` (whichever kind), then closes it. */
export async function withRepositories<T>(
  location: string,
  use: (repositories: Repositories) => Promise<T>,
  options: { secrets?: SecretsKeyring } = {},
): Promise<T> {
  const database = await openDatabase(location);
  try {
    return await use(createRepositories(database.db, () => new Date(), options));
  } finally {
    await database.close();
  }
}

/** How many rows `table` of the database at `location` holds. */
export async function countRows(location: string, table: string): Promise<number> {
  const database = await openDatabase(location);
  try {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(
      database.db,
    );
    return Number(rows[0]!.n);
  } finally {
    await database.close();
  }
}

/**
 * An attacker with write access to the database edits one audit row's digest: refused by the table's trigger, so it
 * goes around it (drops it on SQLite, disables it on PostgreSQL). Resolves the refusal's message.
 */
export async function editAuditDigest(location: string, seq: number, digest: string): Promise<string> {
  const database = await openDatabase(location);
  const edit = sql`update signature_audit set digest = ${digest} where seq = ${seq}`;
  try {
    const refusal = await edit.execute(database.db).then(
      () => "not refused",
      (error: Error) => error.message,
    );
    await (
      isPostgresConnectionUrl(location)
        ? sql`alter table signature_audit disable trigger signature_audit_no_update`
        : sql`drop trigger signature_audit_no_update`
    ).execute(database.db);
    await edit.execute(database.db);
    return refusal;
  } finally {
    await database.close();
  }
}
