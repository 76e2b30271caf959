import { BUILT_IN_PROVIDERS } from "../identity/userId";

/** Where registered provider names are stored (the providers repository). */
export interface ProviderNamesStore {
  names(): Promise<string[]>;
}

/** The providers whose ids are answered: built-in and registered ones, read without I/O on the request path. */
export interface KnownProviders {
  has(provider: string): boolean;
  /** Re-reads the registered names now (the cache also does so every interval). */
  refresh(): Promise<void>;
  stop(): void;
}

const BUILT_IN: ReadonlySet<string> = new Set(BUILT_IN_PROVIDERS);

/**
 * Built-in providers plus every name ever registered, removed ones included: a removed provider's wallets may
 * hold funds and the name is never given to another app, so its addresses stay answerable. The registered
 * names are polled (design: no I/O on the hot path), so a change made by the admin CLI shows within an interval.
 */
export function createKnownProviders(options: {
  store: ProviderNamesStore;
  intervalMs: number;
  onError?: (error: unknown) => void;
}): KnownProviders {
  let registered: ReadonlySet<string> = new Set();
  const refresh = async () => {
    try {
      registered = new Set(await options.store.names());
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => void refresh(), options.intervalMs);
  timer.unref();
  return {
    has: (provider) => BUILT_IN.has(provider) || registered.has(provider),
    refresh,
    stop: () => clearInterval(timer),
  };
}
