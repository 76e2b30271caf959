import type { Logger } from "pino";
import { type Fence, type Lease, type LeaseHolder, LeaseLostError } from "../leases/lease";
import { processExited } from "../leases/leaseHolder";
import type { WorkerLeasesRepository } from "../leases/workerLeasesRepository";
import type { Stepper } from "./stepper";

/** What a leased worker needs. */
export interface LeaseSettings {
  readonly leases: WorkerLeasesRepository;
  readonly holder: LeaseHolder;
  /** How long a lease lasts unless renewed: a dead instance's work waits this long for another. */
  readonly ttlMs: number;
  /**
   * Least time between two tries to take a lease another holds (the poll interval): wakes from this instance's accepted
   * requests, which come at the request rate, must not turn into a query each.
   */
  readonly retryMs: number;
  readonly clock: () => Date;
}

/**
 * Runs a stepper only while this process holds the work's lease (several instances share one database; one runs a
 * chain's worker, and with it the relayer's nonces). Without the lease a step only tries to take it. Each time it is
 * taken, a fresh stepper starts from what the database and the chain say (`start`, given the fence its writes check):
 * nothing from an earlier holding carries over. The lease is renewed in the background every third of its time; a
 * renewal refused (taken over) or overdue stops the stepper at its next step, and its writes meanwhile fail the fence.
 */
export class LeasedStepper implements Stepper {
  private lease: Lease | undefined;
  private stepper: Stepper | undefined;
  private lost = false;
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();
  /** When the last try to take the lease failed (ms, monotonic): the next waits `retryMs`. */
  private lastRefusal = -Infinity;

  constructor(
    private readonly name: string,
    private readonly settings: LeaseSettings,
    private readonly start: (fence: Fence) => Stepper,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(settings.ttlMs / 3)));
    this.timer.unref();
  }

  /** One step of the stepper if the lease is held (taking it if it is free); false if another holds it. */
  async tick(): Promise<boolean> {
    if (!(await this.hold())) return false;
    try {
      return await this.stepper!.tick();
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      await this.drop("a write found the lease taken over");
      return false;
    }
  }

  /** Stops renewing, waits for the stepper's own work, then ends the lease so another instance takes over at once. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    const lease = this.lease;
    await this.drop(undefined);
    if (lease) await this.settings.leases.release(lease);
  }

  private async hold(): Promise<boolean> {
    const { leases, holder, ttlMs, clock } = this.settings;
    if (this.lease && (this.lost || this.lease.expiresAt.getTime() <= clock().getTime())) {
      await this.drop(this.lost ? "taken over" : "not renewed in time");
    }
    if (this.lease) return true;
    if (performance.now() - this.lastRefusal < this.settings.retryMs) return false;
    const lease = await leases.acquire(this.name, holder, ttlMs, processExited);
    if (!lease) {
      this.lastRefusal = performance.now();
      return false;
    }
    this.lease = lease;
    this.lost = false;
    this.stepper = this.start({ name: lease.name, token: lease.token });
    this.logger.info({ lease: lease.name, token: lease.token }, "worker lease taken: resuming from the database");
    return true;
  }

  /** Extends the lease; a refusal marks it lost (an error leaves it to end on its own if renewals keep failing). */
  private renew(): Promise<void> {
    this.renewing = this.renewing.then(async () => {
      const lease = this.lease;
      if (!lease || this.lost) return;
      try {
        const renewed = await this.settings.leases.renew(lease, this.settings.ttlMs);
        if (this.lease !== lease) return;
        if (renewed) this.lease = renewed;
        else this.lost = true;
      } catch (error) {
        this.logger.warn({ lease: lease.name, error: String(error) }, "renewing the worker lease failed");
      }
    });
    return this.renewing;
  }

  private async drop(reason: string | undefined): Promise<void> {
    const stepper = this.stepper;
    const lease = this.lease;
    this.stepper = undefined;
    this.lease = undefined;
    if (lease && reason) this.logger.warn({ lease: lease.name, token: lease.token, reason }, "worker lease lost");
    await stepper?.close?.();
  }
}
