import { BUILT_IN_PROVIDERS } from "./userId";
import type { RegisteredName } from "./providerRegistration";

/** Where registered provider names are stored (the providers repository). */
export interface ProviderNamesStore {
  registeredNames(): Promise<readonly RegisteredName[]>;
}

/** The providers the service answers for, read without I/O on the request path. */
export interface KnownProviders {
  /** Built-in and every registered provider, removed ones included: the ids the resolver answers. */
  has(provider: string): boolean;
  /** Built-in and registered providers while enabled: the ids that have ENS names. */
  hasNames(provider: string): boolean;
  /** A number that changes whenever `has` or `hasNames` may answer differently (for caches built on them). */
  version(): number;
  /** Re-reads the registered names now (the cache also does so every interval). */
  refresh(): Promise<void>;
  stop(): void;
}

const BUILT_IN: ReadonlySet<string> = new Set(BUILT_IN_PROVIDERS);

/**
 * Built-in providers plus every name ever registered, removed ones included: a removed provider's wallets may
 * hold funds and the name is never given to another app, so its addresses stay answerable. Only enabled ones have
 * names: a removed provider's names stop resolving. The registered names are polled (design: no I/O on the hot
 * path), so a change made by the admin CLI shows within an interval.
 */
export function createKnownProviders(options: {
  store: ProviderNamesStore;
  intervalMs: number;
  onError?: (error: unknown) => void;
}): KnownProviders {
  let registered: ReadonlySet<string> = new Set();
  let named: ReadonlySet<string> = new Set();
  let shape = "";
  let version = 0;
  const refresh = async () => {
    try {
      const rows = await options.store.registeredNames();
      const next = rows
        .map((r) => `${r.provider}:${r.enabled ? 1 : 0}`)
        .sort()
        .join(",");
      if (next === shape) return;
      registered = new Set(rows.map((r) => r.provider));
      named = new Set(rows.filter((r) => r.enabled).map((r) => r.provider));
      shape = next;
      version++;
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => void refresh(), options.intervalMs);
  timer.unref();
  return {
    has: (provider) => BUILT_IN.has(provider) || registered.has(provider),
    hasNames: (provider) => BUILT_IN.has(provider) || named.has(provider),
    version: () => version,
    refresh,
    stop: () => clearInterval(timer),
  };
}
