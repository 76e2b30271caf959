import type { Maintenance } from "./maintenance";
/** Service-wide switches an operator flips at run time. */
export interface SettingsRepository {
  /** The current maintenance state; off when it was never set. */
  getMaintenance(): Promise<Maintenance>;
  /** Switches maintenance mode; `message` must satisfy {@link MaintenanceMessage} and is dropped when switching off. */
  setMaintenance(enabled: boolean, message?: string): Promise<void>;
}
