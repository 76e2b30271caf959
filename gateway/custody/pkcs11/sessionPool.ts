/**
 * Lends each of a fixed set of sessions to one operation at a time, callers beyond them waiting in turn: a PKCS#11
 * session runs one operation at a time (a second C_SignInit on it fails with CKR_OPERATION_ACTIVE), while the
 * sessions themselves may work in parallel.
 */
export class SessionPool<S> {
  readonly #free: S[];
  readonly #waiting: Array<(session: S) => void> = [];
  readonly #size: number;
  #closing = false;
  #drained: (() => void) | undefined;

  constructor(sessions: readonly S[]) {
    this.#free = [...sessions];
    this.#size = sessions.length;
  }

  /** Runs `work` with a session of its own; throws `closedError()` once the pool is draining. */
  async use<T>(work: (session: S) => Promise<T>, closedError: () => Error): Promise<T> {
    if (this.#closing) throw closedError();
    const session = this.#free.pop() ?? (await new Promise<S>((resolve) => this.#waiting.push(resolve)));
    try {
      return await work(session);
    } finally {
      this.#give(session);
    }
  }

  #give(session: S): void {
    const next = this.#waiting.shift();
    if (next) return next(session);
    this.#free.push(session);
    if (this.#free.length === this.#size) this.#drained?.();
  }

  /** Refuses new work, waits for the work under way and queued, then returns every session (to close). */
  async drain(): Promise<S[]> {
    this.#closing = true;
    if (this.#free.length < this.#size) await new Promise<void>((resolve) => (this.#drained = resolve));
    return [...this.#free];
  }
}
