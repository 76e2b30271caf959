import { randomBytes, randomInt } from "node:crypto";
import { z } from "zod";
import { PolicySettings } from "../config/policySettings";

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
  /**
   * The operator let this app send Safe calls that can change a Safe's owners, threshold, modules, guards or
   * fallback handler: calls to the Safe itself, delegatecalls, configuration functions (admin CLI
   * `apps grant-safe-config`).
   */
  safeConfigGranted: z.boolean(),
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

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A new client id: `cid_` + 22 base62 characters (~131 bits): unguessable, and URL- and form-safe without escaping. */
export const newClientId = (): string => `cid_${Array.from({ length: 22 }, () => BASE62[randomInt(62)]).join("")}`;

/** A new app id: `app_` + 24 hex characters; the id operators type into the admin CLI. */
export const newAppId = (): string => `app_${randomBytes(12).toString("hex")}`;
