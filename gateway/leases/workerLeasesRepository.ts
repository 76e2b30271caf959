import type { Fence, Lease, LeaseHolder } from "./lease";

/** The leases of work that runs in one process at a time (see leases/lease.ts). */
export interface WorkerLeasesRepository {
  /**
   * Takes the lease `name` for `ttlMs` if it is free, has ended, is `holder`'s own (a holding it dropped), or is held by
   * an earlier process of `holder`'s instance that has exited (`exited(pid)` says so), raising its token. Undefined if another holds it, or is writing
   * under it at this moment (its row is locked: skipped, not waited for).
   */
  acquire(
    name: string,
    holder: LeaseHolder,
    ttlMs: number,
    exited: (pid: number) => boolean,
  ): Promise<Lease | undefined>;
  /** Extends a lease still held with the same token (waiting for writes under it); undefined if it was taken over. */
  renew(lease: Lease, ttlMs: number): Promise<Lease | undefined>;
  /** Ends the lease now if `lease` still holds it, so another instance takes it over without waiting. */
  release(lease: Fence): Promise<void>;
  /** Every lease, for the admin CLI and tests. */
  list(): Promise<Lease[]>;
}
