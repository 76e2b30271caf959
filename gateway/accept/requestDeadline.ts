import { RequestTimeoutError } from "../errors/apiError";

/**
 * A request's deadline (docs/robustness.md). Every commit point of a request (the write that makes its effect
 * real, an outside side effect such as an SMS) runs through `commit`. One begun in time marks the request committed:
 * the deadline then no longer answers for it, and the handler answers normally, late or not. Once the deadline has
 * answered 503, every commit throws before its work begins, so a timed-out request never takes effect.
 */
export class RequestDeadline {
  private state: "open" | "committed" | "expired" = "open";

  constructor(readonly timeoutMs: number) {}

  /** Whether a commit has begun: the request's effect is, or is becoming, real. */
  get committed(): boolean {
    return this.state === "committed";
  }

  /** Runs `work`, a commit point of the request, unless the deadline has passed (RequestTimeoutError, nothing run). */
  commit<T>(work: () => Promise<T>): Promise<T> {
    // Checked and marked in one synchronous step before `work` begins: the deadline's timer cannot run in between.
    if (this.state === "expired") return Promise.reject(new RequestTimeoutError(this.timeoutMs));
    this.state = "committed";
    return work();
  }

  /** The time is up: true if nothing was committed, which now never will be (the caller answers 503). */
  expire(): boolean {
    if (this.state === "committed") return false;
    this.state = "expired";
    return true;
  }
}
