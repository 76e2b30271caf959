import type { App, AppStatus, AppWithSecret } from "./app";
import type { PolicySettings } from "../config/policySettings";
/** Storage of API clients (OAuth 2.0 client credentials, design §5). */
export interface AppsRepository {
  /** Registers an app with a fresh client id and secret; `name` must satisfy {@link AppName}. */
  create(input: { name: string; testMode?: boolean }): Promise<AppWithSecret>;
  findByClientId(clientId: string): Promise<App | undefined>;
  findById(id: string): Promise<App | undefined>;
  /** Every app, oldest first. */
  list(): Promise<App[]>;
  /** Throws NotFoundError for an unknown id. */
  setStatus(id: string, status: AppStatus): Promise<App>;
  /** Throws NotFoundError for an unknown id. */
  setTestMode(id: string, on: boolean): Promise<App>;
  /** Grants or revokes `delegatecall: 1` requests. Throws NotFoundError for an unknown id. */
  setDelegatecallGrant(id: string, granted: boolean): Promise<App>;
  /** Grants or revokes Safe calls that can change a Safe's configuration. Throws NotFoundError for an unknown id. */
  setSafeConfigGrant(id: string, granted: boolean): Promise<App>;
  /** Replaces the app's budget and policy settings (empty: the defaults). Throws NotFoundError for an unknown id. */
  setPolicy(id: string, settings: PolicySettings): Promise<App>;
  /**
   * Replaces the secret and raises the secret generation: the old secret and every token issued before stop working
   * at once. Throws NotFoundError for an unknown id.
   */
  rotateSecret(id: string): Promise<AppWithSecret>;
  /**
   * The active app these credentials belong to, or undefined (unknown client id, disabled app or wrong secret
   * alike, in comparable time, so the answer does not reveal which client ids exist).
   */
  verifySecret(clientId: string, secret: string): Promise<App | undefined>;
}
