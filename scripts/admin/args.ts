import { parseArgs } from "node:util";
import { AppName } from "../../gateway/storage/appsRepository";
import { MaintenanceMessage } from "../../gateway/storage/settingsRepository";

/** Where the database lives when neither `--db` nor DATABASE_PATH says otherwise (relative to the cwd). */
export const DEFAULT_DATABASE_PATH = "data/idwallet.sqlite";

/** The usage text, printed on `--help` (stdout) and after a usage error (stderr). */
export const USAGE = `Usage: admin [--db <path>] <command>

Commands:
  apps create <name> [--test-mode]   register an app; prints its client secret once
  apps list                          list apps (never secrets)
  apps disable <id>                  refuse the app's credentials
  apps enable <id>                   accept the app's credentials again
  apps rotate-secret <id>            replace the client secret; the old one stops working
  apps test-mode <id> on|off         allow or refuse blank "auth" for the app's own providers
  maintenance on [--message <text>]  API routes answer 503 (health and CCIP keep working)
  maintenance off
  maintenance status

Database: --db <path>, else $DATABASE_PATH, else ${DEFAULT_DATABASE_PATH}.`;

/** One admin action, already validated, so running it needs no further checks of the input. */
export type AdminCommand =
  | { readonly kind: "help" }
  | { readonly kind: "apps create"; readonly name: string; readonly testMode: boolean }
  | { readonly kind: "apps list" }
  | { readonly kind: "apps status"; readonly id: string; readonly status: "active" | "disabled" }
  | { readonly kind: "apps rotate-secret"; readonly id: string }
  | { readonly kind: "apps test-mode"; readonly id: string; readonly on: boolean }
  | { readonly kind: "maintenance on"; readonly message?: string }
  | { readonly kind: "maintenance off" }
  | { readonly kind: "maintenance status" };

/** The outcome of reading the command line: a command and database path, or what was wrong with it. */
export type ParsedAdminArgs =
  | { readonly ok: true; readonly dbPath: string; readonly command: AdminCommand }
  | { readonly ok: false; readonly error: string };

/** Reads argv (without node and the script) into a command; `env` supplies DATABASE_PATH. */
export function parseAdminArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedAdminArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        db: { type: "string" },
        message: { type: "string" },
        "test-mode": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  const dbPath = values.db ?? (env.DATABASE_PATH || DEFAULT_DATABASE_PATH);
  if (values.help) return { ok: true, dbPath, command: { kind: "help" } };
  try {
    const command = toCommand(positionals, values);
    // Options are accepted anywhere on the line, so refuse those the chosen command would silently ignore.
    if (values["test-mode"] !== undefined && command.kind !== "apps create") {
      throw new UsageError("option --test-mode applies only to apps create");
    }
    if (values.message !== undefined && command.kind !== "maintenance on") {
      throw new UsageError("option --message applies only to maintenance on");
    }
    return { ok: true, dbPath, command };
  } catch (error) {
    if (error instanceof UsageError) return { ok: false, error: error.message };
    throw error;
  }
}

class UsageError extends Error {}

const issues = (error: { issues: ReadonlyArray<{ message: string }> }): string =>
  error.issues.map((issue) => issue.message).join("; ");

function toCommand(positionals: string[], values: { message?: string; "test-mode"?: boolean }): AdminCommand {
  const [group, action, ...rest] = positionals;
  const line = [group, action].filter((word) => word !== undefined).join(" ");
  const takes = (count: number): string[] => {
    if (rest.length !== count) throw new UsageError(`"${line}" takes ${count} argument(s), got ${rest.length}`);
    return rest;
  };
  const one = (): string => {
    const [first] = takes(1);
    if (first === undefined) throw new UsageError(`"${line}" takes 1 argument`);
    return first;
  };
  switch (line) {
    case "help":
      return { kind: "help" };
    case "apps create": {
      const name = AppName.safeParse(one());
      if (!name.success) throw new UsageError(issues(name.error));
      return { kind: "apps create", name: name.data, testMode: values["test-mode"] ?? false };
    }
    case "apps list":
      takes(0);
      return { kind: "apps list" };
    case "apps disable":
      return { kind: "apps status", id: one(), status: "disabled" };
    case "apps enable":
      return { kind: "apps status", id: one(), status: "active" };
    case "apps rotate-secret":
      return { kind: "apps rotate-secret", id: one() };
    case "apps test-mode": {
      const [id = "", mode] = takes(2);
      if (mode !== "on" && mode !== "off") throw new UsageError(`test mode must be "on" or "off", got "${mode}"`);
      return { kind: "apps test-mode", id, on: mode === "on" };
    }
    case "maintenance on": {
      takes(0);
      if (values.message === undefined) return { kind: "maintenance on" };
      const message = MaintenanceMessage.safeParse(values.message);
      if (!message.success) throw new UsageError(issues(message.error));
      return { kind: "maintenance on", message: message.data };
    }
    case "maintenance off":
    case "maintenance status":
      takes(0);
      return { kind: line };
    default:
      throw new UsageError(line === "" ? "missing command" : `unknown command "${line}"`);
  }
}
