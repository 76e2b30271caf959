import { z } from "zod";
import { TOKEN_SESSION_LABEL } from "../../gateway/console/consoleSecrets";
import { UsageError, issues } from "./usageError";

/** Usage lines of the operator console's commands (part of the admin CLI's usage text). */
export const CONSOLE_USAGE = `  console open [--label <name>]      print a one-time link that opens a console session (once, within
                                     CONSOLE_LINK_TTL_SECONDS); the session's actions are recorded under the label
  console actions                    the operators' latest actions, console and CLI (who, when, what, result)
  console close-sessions             close every open console session and unused link (a stolen cookie or link);
                                     rotating CONSOLE_TOKEN closes the sessions the old token opened
  requests cancel <request-id>       cancel a request still queued and never built: it fails with
                                     CANCELLED_BY_OPERATOR and its reserved gas is released; refused once built`;

/** The option names of the console commands, with their parseArgs types. */
export const CONSOLE_OPTIONS = { label: { type: "string" } } as const;

/** The options the console commands read. */
export interface ConsoleOptions {
  label?: string;
}

/** Who a link's session acts as: printable, short. */
const Label = z
  .string()
  .trim()
  .regex(/^[\x20-\x7e]{1,64}$/, "1 to 64 printable ASCII characters")
  .refine((label) => !label.startsWith(TOKEN_SESSION_LABEL), `a label may not start with "${TOKEN_SESSION_LABEL}"`);

/** One console admin action, validated. */
export type ConsoleCommand =
  | { readonly kind: "open"; readonly label: string }
  | { readonly kind: "actions" }
  | { readonly kind: "close-sessions" }
  | { readonly kind: "cancel"; readonly txId: string };

/** Reads `console <action>` or `requests cancel <id>`. */
export function parseConsoleCommand(
  group: "console" | "requests",
  action: string | undefined,
  rest: readonly string[],
  values: ConsoleOptions,
): ConsoleCommand {
  const line = `${group} ${action ?? ""}`.trim();
  if (values.label !== undefined && line !== "console open")
    throw new UsageError("option --label applies only to console open");
  if (line === "requests cancel") {
    if (rest.length !== 1) throw new UsageError(`"requests cancel" takes 1 argument, got ${rest.length}`);
    return { kind: "cancel", txId: rest[0]! };
  }
  if (rest.length !== 0) throw new UsageError(`"${line}" takes no arguments`);
  if (line === "console actions") return { kind: "actions" };
  if (line === "console close-sessions") return { kind: "close-sessions" };
  if (line !== "console open") throw new UsageError(`unknown command "${line}"`);
  const label = Label.safeParse(values.label ?? "operator");
  if (!label.success) throw new UsageError(issues(label.error));
  return { kind: "open", label: label.data };
}
