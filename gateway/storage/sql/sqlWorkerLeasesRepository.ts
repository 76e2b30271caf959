import type { Kysely, Selectable, Transaction } from "kysely";
import type { Fence, Lease, LeaseHolder } from "../../leases/lease";
import { FIRST_TOKEN, LeaseLostError, mayTakeLease } from "../../leases/lease";
import { boundIdleInTransaction, lockRows } from "./dialect/rowLocks";
import type { DatabaseSchema, WorkerLeasesTable } from "../schema";
import type { WorkerLeasesRepository } from "../../leases/workerLeasesRepository";

/**
 * How long PostgreSQL lets a transaction that locks a lease row (a fenced write, a renewal, a takeover) sit idle before
 * it ends the session, rolling the transaction back. A holder frozen there (SIGSTOP, a paused VM, a partition) would
 * otherwise keep the row locked for as long as it stays frozen, and every other instance's acquire skips a locked row:
 * the chain's worker would stand still. These transactions run their statements back to back, so only a stalled
 * process goes idle this long; below the shortest lease (TX_LEASE_SECONDS 2), so a takeover waits no longer than that.
 */
const LEASE_LOCK_IDLE_MS = 1_000;

/** First thing in a transaction that will lock a lease row: bound how long it may sit idle holding it. */
const boundLeaseLockIdle = (trx: Transaction<DatabaseSchema>) => boundIdleInTransaction(trx, LEASE_LOCK_IDLE_MS);

const toLease = (row: Selectable<WorkerLeasesTable>): Lease => ({
  name: row.name,
  holder: {
    id: row.holder_id,
    host: row.holder_host,
    pid: Number(row.holder_pid),
    pidNamespace: row.holder_pid_namespace,
  },
  token: Number(row.token),
  expiresAt: new Date(row.expires_at),
});

/**
 * Worker leases on either database. On PostgreSQL the lease row is locked `for update` by whoever changes it and
 * `for share` by every write under it (`checkFence`), so a takeover never lands in the middle of the holder's write;
 * on SQLite every write transaction is `begin immediate` and already runs alone.
 */
export class SqlWorkerLeasesRepository implements WorkerLeasesRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  acquire(name: string, holder: LeaseHolder, ttlMs: number, exited: (pid: number) => boolean) {
    return this.db.transaction().execute(async (trx): Promise<Lease | undefined> => {
      await boundLeaseLockIdle(trx);
      const now = this.clock();
      const row = await trx
        .selectFrom("worker_leases")
        .selectAll()
        .where("name", "=", name)
        .$call(lockRows(trx, "update", { skipLocked: true }))
        .executeTakeFirst();
      const values = {
        holder_id: holder.id,
        holder_host: holder.host,
        holder_pid: holder.pid,
        holder_pid_namespace: holder.pidNamespace,
        acquired_at: now.toISOString(),
        expires_at: new Date(now.getTime() + ttlMs).toISOString(),
      };
      if (!row) {
        // Locked rows are skipped, so a missing row may be one being written: the insert then does nothing.
        const inserted = await trx
          .insertInto("worker_leases")
          .values({ name, token: FIRST_TOKEN, ...values })
          .onConflict((c) => c.column("name").doNothing())
          .executeTakeFirst();
        return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1
          ? toLease({ name, token: FIRST_TOKEN, ...values })
          : undefined;
      }
      if (!mayTakeLease(toLease(row), holder, now, exited)) return undefined;
      const token = Number(row.token) + 1;
      await trx
        .updateTable("worker_leases")
        .set({ token, ...values })
        .where("name", "=", name)
        .where("token", "=", row.token)
        .execute();
      return toLease({ name, token, ...values });
    });
  }

  renew(lease: Lease, ttlMs: number) {
    return this.db.transaction().execute(async (trx): Promise<Lease | undefined> => {
      await boundLeaseLockIdle(trx);
      const expiresAt = new Date(this.clock().getTime() + ttlMs);
      const result = await trx
        .updateTable("worker_leases")
        .set({ expires_at: expiresAt.toISOString() })
        .where("name", "=", lease.name)
        .where("holder_id", "=", lease.holder.id)
        .where("token", "=", lease.token)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1 ? { ...lease, expiresAt } : undefined;
    });
  }

  async release(lease: Fence): Promise<void> {
    await this.db
      .updateTable("worker_leases")
      .set({ expires_at: this.clock().toISOString() })
      .where("name", "=", lease.name)
      .where("token", "=", lease.token)
      .execute();
  }

  async list(): Promise<Lease[]> {
    const rows = await this.db.selectFrom("worker_leases").selectAll().orderBy("name").execute();
    return rows.map(toLease);
  }
}

/**
 * Checks, first thing in a write's transaction, that `fence` still holds its lease (throws LeaseLostError if not),
 * and keeps the lease from changing holder until the transaction ends (or, frozen idle in it, the server ends it).
 */
export async function checkFence(trx: Transaction<DatabaseSchema>, fence: Fence): Promise<void> {
  await boundLeaseLockIdle(trx);
  const row = await trx
    .selectFrom("worker_leases")
    .select("token")
    .where("name", "=", fence.name)
    .$call(lockRows(trx, "share"))
    .executeTakeFirst();
  if (!row || Number(row.token) !== fence.token) throw new LeaseLostError(fence);
}
