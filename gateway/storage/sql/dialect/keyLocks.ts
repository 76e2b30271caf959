import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { isPostgres } from "./dialectOf";

/** A lock key's 64-bit number: the first 8 bytes of its SHA-256, signed (what `pg_advisory_xact_lock` takes). */
export function advisoryKey(key: string): bigint {
  return createHash("sha256").update(key).digest().readBigInt64BE(0);
}

/**
 * Key locks, for a check-then-write whose rows may not exist yet (nothing to lock `for update`). Takes PostgreSQL's
 * transaction-level advisory lock on each of `keys` (what the write checks: an app's Idempotency-Keys and spend, a
 * phone's codes, a Safe's address), held until the transaction ends. SQLite needs none:
 * `begin immediate` already serializes every write transaction, across processes too. The locks are taken in the
 * order of their numbers, so two transactions locking overlapping sets cannot deadlock.
 */
export async function lockKeys(trx: Pick<Kysely<unknown>, "getExecutor">, keys: Iterable<string>): Promise<void> {
  if (!isPostgres(trx)) return;
  const numbers = [...new Set([...keys].map(advisoryKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of numbers) await sql`select pg_advisory_xact_lock(${key.toString()}::bigint)`.execute(trx);
}
