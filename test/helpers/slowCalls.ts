/** A switch for how long the slowed calls wait: 0 lets them run at once. */
export interface Slowdown {
  ms: number;
  /** Calls that began waiting, and ended (ran the real method), so far. */
  readonly started: number;
  readonly ended: number;
}

/**
 * `target` with its async `method` waiting `slowdown.ms` before it runs (a write stuck behind a slow disk, a
 * provider slow to answer); every other member is the target's own.
 */
export function slowed<T extends object>(target: T, method: keyof T & string, slowdown: Slowdown): T {
  const counts = slowdown as { started: number; ended: number };
  const original = target[method] as (...args: unknown[]) => Promise<unknown>;
  const wrapper = async (...args: unknown[]) => {
    if (slowdown.ms > 0) {
      counts.started += 1;
      await new Promise((resolve) => setTimeout(resolve, slowdown.ms));
      counts.ended += 1;
    }
    return original.apply(target, args);
  };
  return new Proxy(target, {
    get: (t, property) => {
      if (property === method) return wrapper;
      const value: unknown = Reflect.get(t, property, t);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** A slowdown, off until `ms` is set. */
export const slowdown = (ms = 0): Slowdown => ({ ms, started: 0, ended: 0 });
