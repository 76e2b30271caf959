import { UsageError } from "./usageError";

/** Usage lines of the audit commands (part of the admin CLI's usage text). */
export const AUDIT_USAGE = `  audit verify                       check the signature audit log's chain (its keyed rows with AUDIT_LOG_KEY from
                                     the environment); prints its rows, from which seq it is keyed, and the head
                                     hash (keep it elsewhere); exits 1 at the first broken row, with why
  audit export [--after <seq>]       the signature audit log as JSON lines, one row a line, oldest first`;

/** The options the audit commands read. */
export interface AuditOptions {
  after?: string;
}

/** The option names of the audit commands, with their parseArgs types. */
export const AUDIT_OPTIONS = { after: { type: "string" } } as const;

/** One audit admin action, validated. */
export type AuditCommand =
  { readonly kind: "verify" } | { readonly kind: "export"; readonly afterSeq: number | undefined };

/** Reads `audit <action> …` into a command. */
export function parseAuditCommand(
  action: string | undefined,
  rest: readonly string[],
  values: AuditOptions,
): AuditCommand {
  if (action !== "verify" && action !== "export") {
    throw new UsageError(action === undefined ? '"audit" needs verify or export' : `unknown command "audit ${action}"`);
  }
  if (rest.length > 0) throw new UsageError(`"audit ${action}" takes 0 argument(s), got ${rest.length}`);
  if (action === "verify") {
    if (values.after !== undefined) throw new UsageError("option --after applies only to audit export");
    return { kind: "verify" };
  }
  if (values.after === undefined) return { kind: "export", afterSeq: undefined };
  const afterSeq = /^\d{1,15}$/.test(values.after) ? Number(values.after) : undefined;
  if (afterSeq === undefined) throw new UsageError(`--after must be a row's seq (0 or more), got "${values.after}"`);
  return { kind: "export", afterSeq };
}
