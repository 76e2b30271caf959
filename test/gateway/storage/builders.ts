import { randomBytes, scryptSync } from "node:crypto";
import { createSecretsKeyring, type SecretsKeyring } from "../../../gateway/crypto/secretsKeyring";
import { openDatabase, type Database } from "../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../gateway/storage/repositories";

/** A clock the test moves by hand, so stored timestamps are exact. */
export interface ManualClock {
  readonly now: () => Date;
  advance(ms: number): void;
}

/** Starts at `start` and only moves when told to. */
export function manualClock(start = "2025-01-01T00:00:00.000Z"): ManualClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance: (ms) => {
      current += ms;
    },
  };
}

/** SECRETS_KEY of test stores, and another key, as 64 hex digits. */
export const TEST_KEYS = { current: "a1".repeat(32), other: "b2".repeat(32) } as const;

/** A keyring as the service builds it from SECRETS_KEY (and SECRETS_KEY_PREVIOUS). */
export const testKeyring = (key: string = TEST_KEYS.current, previousKey?: string): SecretsKeyring =>
  createSecretsKeyring({ key, ...(previousKey ? { previousKey } : {}) })!;

/** A fresh, migrated `:memory:` database with repositories over it (secrets sealed with a test key) and a manual clock. */
export interface TestStore {
  readonly database: Database;
  readonly repos: Repositories;
  readonly clock: ManualClock;
}

/** A fresh, migrated database: SQLite in memory unless a contract suite passes another dialect's. */
export type OpenTestDatabase = () => Promise<Database>;

/** Opens a fresh store (in-memory SQLite unless `open` says otherwise); close it with `store.database.close()`. */
export async function openTestStore(open: OpenTestDatabase = () => openDatabase(":memory:")): Promise<TestStore> {
  const database = await open();
  const clock = manualClock();
  return { database, repos: createRepositories(database.db, clock.now, { secrets: testKeyring() }), clock };
}

/** A stored scrypt hash of `secret` with explicit parameters, as the code before HMAC-SHA256 wrote it. */
export function scryptHash(secret: string, N = 16384, r = 8, p = 1): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N, r, p });
  return ["scrypt", N, r, p, salt.toString("base64"), key.toString("base64")].join("$");
}
