import { z } from "zod";
import { PolicySettings } from "../policy/policySettings";

/** Whether an app may obtain tokens: a disabled app's credentials are refused. */
export const AppStatus = z.enum(["active", "disabled"]);
/** See {@link AppStatus}. */
export type AppStatus = z.infer<typeof AppStatus>;

/** A display name an operator gives an app: trimmed, 1–100 characters, no control characters (it is printed). */
export const AppName = z
  .string()
  .trim()
  .min(1, "app name must not be empty")
  .max(100, "app name must be at most 100 characters")
  .regex(/^\P{Cc}*$/u, "app name must not contain control characters");

/** An API client as the rest of the service sees it; the secret hash never leaves storage. */
export const App = z.object({
  id: z.string(),
  name: z.string(),
  clientId: z.string(),
  status: AppStatus,
  testMode: z.boolean(),
  /** The operator let this app send delegatecall requests (admin CLI `apps grant-delegatecall`). */
  delegatecallGranted: z.boolean(),
  /** The operator's budget and policy settings (admin CLI `apps policy`); empty: the defaults. */
  policy: z.custom<PolicySettings>(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  secretRotatedAt: z.iso.datetime(),
  /** Raised by every secret rotation: tokens issued under an earlier one are revoked. */
  secretGeneration: z.number().int().min(0),
});
/** See {@link App}. */
export type App = z.infer<typeof App>;

/** An app together with its client secret, which exists in clear only in this return value. */
export interface AppWithSecret {
  readonly app: App;
  readonly clientSecret: string;
}

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
