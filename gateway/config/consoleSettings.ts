import { z } from "zod";
import { flag, int } from "./settingTypes";

/**
 * The operator console (issue 38): served at /console only when the operator turns it on, with a token
 * (CONSOLE_TOKEN) or for one-time links alone (CONSOLE_ENABLED; `npm run admin -- console open` prints them).
 */
export const ConsoleSettings = z
  .object({
    enabled: flag.default(false),
    /** Posted to the console's login form to open a session; never an app's bearer token. */
    token: z.string().min(32, "at least 32 characters").optional(),
    /** How long a console session lasts from its login. */
    sessionTtlSeconds: int(60, 7 * 86_400).default(8 * 3_600),
    /** How long a link from `console open` may be used (once). */
    linkTtlSeconds: int(60, 86_400).default(900),
  })
  .prefault({});

/** The console's settings, parsed. */
export type ConsoleSettings = z.infer<typeof ConsoleSettings>;

/** Whether /console exists at all: without CONSOLE_TOKEN or CONSOLE_ENABLED every console URL is a 404. */
export const consoleServed = (settings: ConsoleSettings): boolean => settings.enabled || settings.token !== undefined;

/** The console's environment variables → their place in the configuration (config/load.ts reads them). */
export const CONSOLE_ENV_PATHS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["CONSOLE_ENABLED", ["console", "enabled"]],
  ["CONSOLE_TOKEN", ["console", "token"]],
  ["CONSOLE_SESSION_TTL_SECONDS", ["console", "sessionTtlSeconds"]],
  ["CONSOLE_LINK_TTL_SECONDS", ["console", "linkTtlSeconds"]],
];
