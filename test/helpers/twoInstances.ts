import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildTestApp } from "./testApp";
import { freshPostgresDatabase } from "./postgresServer";

/** One service stack of the test helper (createApp over its own connection). */
export type Instance = ReturnType<typeof buildTestApp>;

/** A database several instances can open: a SQLite file (each instance its own connection) or a PostgreSQL database. */
export interface SharedDatabase {
  readonly name: string;
  readonly kind: "sqlite" | "postgres";
  /** A fresh, empty database's location (a file path under `dir`, or a postgres:// URL). */
  location(dir: string): Promise<string>;
}

/** The databases N instances share: a SQLite file and a PostgreSQL database. */
export const SHARED_DATABASES: readonly SharedDatabase[] = [
  {
    name: "SQLite, one file",
    kind: "sqlite",
    location: async (dir) => path.join(dir, "shared.sqlite"),
  },
  { name: "PostgreSQL", kind: "postgres", location: async () => freshPostgresDatabase("instances") },
];

/**
 * Registers mocha hooks giving each test a fresh `database` and returns `two(overrides, options)`: two instances over
 * it, behind a trusted proxy (X-Forwarded-For names the client), the first migrating it before the second opens it.
 */
export function twoInstancesOn(database: SharedDatabase) {
  let dir: string;
  let location: string;
  const open: Instance[] = [];
  beforeEach(async function () {
    this.timeout(60_000);
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-instances-"));
    location = await database.location(dir);
  });
  afterEach(() => {
    for (const instance of open.splice(0)) instance.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return async (overrides: Record<string, unknown> = {}, options: Parameters<typeof buildTestApp>[1] = {}) => {
    const build = () => buildTestApp({ trustProxy: 1, ...overrides }, { ...options, databasePath: location });
    const a = build();
    open.push(a);
    await a.database;
    const b = build();
    open.push(b);
    await b.database;
    return [a, b] as const;
  };
}
