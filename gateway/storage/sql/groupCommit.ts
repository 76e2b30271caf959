import { type Kysely, type Transaction, sql } from "kysely";
import { isStorageUnavailable } from "../errors";
import { lockKeys } from "./dialect/keyLocks";
import type { DatabaseSchema } from "../schema";

/** One write of a group: what it stores, in the group's transaction. */
export type GroupWrite<T> = (trx: Transaction<DatabaseSchema>) => Promise<T>;

type Pending = {
  write: GroupWrite<unknown>;
  keys: readonly string[];
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
};
type Outcome = { readonly value: unknown } | { readonly refused: unknown };

/**
 * Group commit of accepted requests, wallet and Safe alike: the writes that arrive in one turn of the event loop run in
 * one transaction, so they share one fsync (synchronous FULL) instead of paying one each; every caller still gets its
 * answer only after the commit (design §1.4). A write that fails (refused by its own rules, a spend limit or a Safe
 * already recorded; or a statement of it failed, a constraint) is undone alone, under its savepoint, while the others
 * still share the commit: PostgreSQL aborts the whole transaction on a failed statement until `rollback to` its
 * savepoint. Should the database fail (a full disk, a lost connection, a deadlock with another instance), each write
 * is tried alone, so one bad request cannot fail the others.
 */
export class GroupCommit {
  /** Writes waiting for the next commit. */
  private pending: Pending[] = [];
  /** Whether a group's transaction is running: the next group waits for it, gathering what arrives meanwhile. */
  private committing = false;

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /**
   * Runs `write` in the next group's transaction; resolves once that committed. `keys` name what the write checks
   * before it writes (an app's Idempotency-Keys and spend, a Safe's address): on PostgreSQL the transaction locks them
   * first (`lockKeys`), since another instance may write the same rows at once.
   */
  run<T>(keys: readonly string[], write: GroupWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, keys, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1 && !this.committing) setImmediate(() => void this.commitGroups());
    });
  }

  /**
   * Commits groups one after another until none waits. One at a time: on PostgreSQL two groups of one instance would
   * hold two connections and wait on each other's key locks (one app's acceptances share a key), each paying its
   * round trips in turn; one group gathering every write that arrived meanwhile pays them once.
   */
  private async commitGroups(): Promise<void> {
    this.committing = true;
    try {
      while (this.pending.length > 0) await this.commitPending();
    } finally {
      this.committing = false;
    }
  }

  private async commitPending(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const outcomes = await this.db.transaction().execute(async (trx) => {
        // All of the group's locks up front, in one order: taken write by write, two groups could deadlock.
        await lockKeys(
          trx,
          batch.flatMap((item) => item.keys),
        );
        // Writes in the order of their first key (an app's, stable within it): acceptances then take app buckets in
        // the sorted order a bundle's settlement takes them (addToBucketsTogether), so neither waits in a cycle.
        const out: Outcome[] = new Array<Outcome>(batch.length);
        const order = batch
          .map((_, i) => i)
          .sort((x, y) => {
            const [a, b] = [batch[x]!.keys[0] ?? "", batch[y]!.keys[0] ?? ""];
            return a < b ? -1 : a > b ? 1 : x - y;
          });
        for (const i of order) out[i] = await this.runOrRefuse(trx, batch[i]!.write);
        return out;
      });
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if ("refused" in outcome) item.reject(outcome.refused);
        else item.resolve(outcome.value);
      });
    } catch {
      for (const item of batch) {
        await this.db
          .transaction()
          .execute(async (trx) => {
            await lockKeys(trx, item.keys);
            return item.write(trx);
          })
          .then(item.resolve, item.reject);
      }
    }
  }

  /**
   * `write` under a savepoint: its failure undoes only this write's part of the group. If the database itself failed,
   * or even `rollback to` fails (the transaction is gone), the write's own error fails the group, which then tries
   * each write alone.
   */
  private async runOrRefuse(trx: Transaction<DatabaseSchema>, write: GroupWrite<unknown>): Promise<Outcome> {
    await sql`savepoint batch_item`.execute(trx);
    try {
      const value = await write(trx);
      await sql`release batch_item`.execute(trx);
      return { value };
    } catch (error) {
      // The database's state, not this write (a full disk, a lost connection, a deadlock with another instance): the
      // group fails and each write is tried alone, in a transaction of its own.
      if (isStorageUnavailable(error)) throw error;
      try {
        await sql`rollback to batch_item`.execute(trx);
        await sql`release batch_item`.execute(trx);
      } catch {
        throw error;
      }
      return { refused: error };
    }
  }
}
