/**
 * Leases: which instance runs a piece of work that must run in one place at a time (a chain's transaction worker,
 * which alone spends the relayer's nonces on that chain). A lease is taken for a while and renewed; an instance that
 * dies stops renewing and another takes the work over once it ends. Each change of holder raises the fencing token,
 * and every write the work makes checks the token in its own transaction: a holder that lost its lease (paused,
 * partitioned, too slow to renew) can no longer record anything, whatever it believes.
 */

/** Who asks for a lease: one process of one instance. */
export interface LeaseHolder {
  /** Random per process start: a restarted process is another holder. */
  readonly id: string;
  /** The instance's name (INSTANCE_ID, by default the host name). */
  readonly host: string;
  readonly pid: number;
  /**
   * Where `pid` means something: the machine's boot and the process's pid namespace. Two containers given one
   * INSTANCE_ID by mistake have different ones, so neither reads the other's pid as an exited process of its own.
   */
  readonly pidNamespace: string;
}

/** A lease held: the work's name, the holder, its fencing token and when it ends unless renewed. */
export interface Lease {
  readonly name: string;
  readonly holder: LeaseHolder;
  readonly token: number;
  readonly expiresAt: Date;
}

/** What a write made under a lease carries: the lease's name and the token it was granted with. */
export interface Fence {
  readonly name: string;
  readonly token: number;
}

/** A write under a lease that has changed holder since: nothing of the write was stored. */
export class LeaseLostError extends Error {
  override readonly name = "LeaseLostError";

  constructor(readonly fence: Fence) {
    super(`the lease ${JSON.stringify(fence.name)} (token ${fence.token}) is held by another process now`);
  }
}

/** The fencing token of a lease's first holder; each change of holder raises it by one. */
export const FIRST_TOKEN = 1;

/**
 * Whether `holder` may take `current` at `now`: it has ended, it is `holder`'s own (a holding it dropped after a write
 * found the token changed), or an earlier process of `holder`'s instance held it and has exited (`exited(pid)` says so;
 * only where pids mean the same thing: same instance name and pid namespace).
 */
export function mayTakeLease(
  current: Lease,
  holder: LeaseHolder,
  now: Date,
  exited: (pid: number) => boolean,
): boolean {
  if (current.holder.id === holder.id || current.expiresAt.getTime() <= now.getTime()) return true;
  return (
    current.holder.host === holder.host &&
    current.holder.pidNamespace === holder.pidNamespace &&
    exited(current.holder.pid)
  );
}

/** The lease of a chain's transaction worker. */
export const chainWorkerLease = (chain: string): string => `tx-worker:${chain}`;
