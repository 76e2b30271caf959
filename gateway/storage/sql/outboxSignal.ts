/**
 * Tells this process's delivery loop that an event it recorded has been committed, so it looks at once instead of at
 * its next poll. One is shared by the repositories that record events (createRepositories); it knows nothing of other
 * processes, whose events the poll finds.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` at each commit of an event; returns what stops it. */
  listen(listener: () => void): () => void {
    const own = () => listener();
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  /** An event was committed: tells every listener, at once (a listener only schedules work; it must not throw). */
  committed(): void {
    for (const listener of this.listeners) listener();
  }
}
