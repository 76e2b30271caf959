/** How to run a group of operations in one node call, and what to make of one that fails alone. */
export interface Isolation<T, R> {
  /** One node call for `group`; its results in the order of `group`. Throws when the call gives no answer. */
  run(group: readonly T[]): Promise<R[]>;
  /** Whether the node answers the same kind of call without any of the operations (it is up and sane). */
  nodeAnswers(): Promise<boolean>;
  /** The result of an operation whose call fails alone while the node answers. */
  failedAlone(item: T, error: unknown): R;
}

/**
 * Runs `items` through `isolation.run` in one call and, when that call fails with no answer about any one
 * operation (an error without revert data, a node error, a timeout), halves the group until the operations that
 * fail alone are found: only they get `failedAlone`, the others their own results. One operation must not stall
 * the rest of the chain. When the node does not answer even without the operations (down, unreachable), the
 * failure is the node's and is thrown: nobody is blamed for an outage.
 */
export async function runIsolated<T, R>(items: readonly T[], isolation: Isolation<T, R>): Promise<R[]> {
  if (items.length === 0) return [];
  try {
    return await isolation.run(items);
  } catch (error) {
    if (!(await answers(isolation))) throw error;
    if (items.length === 1) return [isolation.failedAlone(items[0]!, error)];
    const middle = Math.ceil(items.length / 2);
    // The halves are independent calls on the same state, so they go out together.
    const [left, right] = await Promise.all([
      runIsolated(items.slice(0, middle), isolation),
      runIsolated(items.slice(middle), isolation),
    ]);
    return [...left, ...right];
  }
}

/** nodeAnswers, with a failing check counted as "no". */
async function answers<T, R>(isolation: Isolation<T, R>): Promise<boolean> {
  try {
    return await isolation.nodeAnswers();
  } catch {
    return false;
  }
}
