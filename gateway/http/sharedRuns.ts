/**
 * Runs of an expensive public read shared by its callers, so that the number of callers does not set the number of
 * runs (design invariant 10: nobody without credentials can exhaust us). Timed with the process's own clock, not the
 * service's: they bound work per real second.
 */

/**
 * `work` for every caller, never answered from before the caller came, but one run at a time and runs starting at
 * least `intervalMs` apart: callers arriving while a run waits to start share it. For answers that must be fresh
 * (a scrape after a change shows the change) at a bounded rate.
 */
export function throttled<T>(work: () => Promise<T>, intervalMs: number): () => Promise<T> {
  let previous: Promise<unknown> = Promise.resolve();
  let lastStart = -Infinity;
  let waiting: Promise<T> | undefined;
  return () => {
    if (waiting) return waiting;
    const run = (async () => {
      await previous.catch(() => undefined);
      // Timers count whole milliseconds and may fire a fraction early: wait until the interval has truly passed.
      for (
        let wait = lastStart + intervalMs - performance.now();
        wait > 0;
        wait = lastStart + intervalMs - performance.now()
      )
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
      // From here on a new caller may have come after the state this run reads: it gets the next run.
      waiting = undefined;
      lastStart = performance.now();
      return work();
    })();
    waiting = run;
    previous = run;
    return run;
  };
}
