/** Where the admin's maintenance switch is stored (the settings repository). */
export interface MaintenanceStore {
  getMaintenance(): Promise<{ enabled: boolean; message?: string }>;
}

/** Current maintenance state, read without I/O on the request path. */
export interface MaintenanceMonitor {
  current(): { readonly enabled: boolean; readonly message?: string };
  /** Re-reads the stored switch now (the monitor also does so every interval). */
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * Maintenance is on when the configuration says so or the stored switch (admin CLI) is on. The stored
 * switch is polled, so requests never wait on the database for it.
 */
export function createMaintenanceMonitor(options: {
  configured: { enabled: boolean; message?: string };
  store: MaintenanceStore;
  intervalMs: number;
  onError?: (error: unknown) => void;
}): MaintenanceMonitor {
  let stored: { enabled: boolean; message?: string } = { enabled: false };
  const refresh = async () => {
    try {
      stored = await options.store.getMaintenance();
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = setInterval(() => void refresh(), options.intervalMs);
  timer.unref();
  return {
    current: () => (options.configured.enabled ? options.configured : stored.enabled ? stored : { enabled: false }),
    refresh,
    stop: () => clearInterval(timer),
  };
}
