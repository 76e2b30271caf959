import { parseArgs } from "node:util";
import { ProviderName, type ProviderVerification } from "../../gateway/identity/providerRegistration";
import { AppName } from "../../gateway/auth/app";
import { MaintenanceMessage } from "../../gateway/config/maintenance";
import { AUDIT_OPTIONS, AUDIT_USAGE, type AuditCommand, type AuditOptions, parseAuditCommand } from "./auditArgs";
import { KEYS_USAGE, type KeysCommand, parseKeysCommand } from "./keysArgs";
import { POLICY_OPTIONS, POLICY_USAGE, type PolicyOptions } from "./policyArgs";
import { PROVIDER_OPTIONS, type ProviderOptions, providerVerification } from "./providerArgs";
import { UsageError, issues } from "./usageError";
import { CONSOLE_OPTIONS, CONSOLE_USAGE, type ConsoleCommand, parseConsoleCommand } from "./consoleArgs";
import {
  WEBHOOK_OPTIONS,
  WEBHOOKS_USAGE,
  type WebhookCommand,
  type WebhookOptions,
  parseWebhookCommand,
} from "./webhookArgs";
import {
  DB_OPTIONS,
  DB_USAGE,
  DEFAULT_DATABASE_PATH,
  type DbCommand,
  type DbOptions,
  databaseOf,
  parseDbCommand,
} from "./dbArgs";
import {
  DUST_OPTIONS,
  DUST_USAGE,
  type DustCommand,
  type DustOptions,
  DustUsageError,
  parseDustCommand,
} from "./dustArgs";

export { DEFAULT_DATABASE_PATH } from "./dbArgs";

/** The usage text, printed on `--help` (stdout) and after a usage error (stderr). */
export const USAGE = `Usage: admin [--db <path or postgres-url>] <command>

Commands:
  apps create <name> [--test-mode]   register an app; prints its client secret once
  apps list                          list apps (never secrets)
  apps disable <id>                  refuse the app's credentials
  apps enable <id>                   accept the app's credentials again
  apps rotate-secret <id>            replace the client secret; the old one and every token issued with it stop working
  apps test-mode <id> on|off         allow or refuse blank "auth" for the app's own providers
  apps grant-delegatecall <id>       let the app send delegatecall requests (their code runs as the wallet)
  apps revoke-delegatecall <id>      refuse the app's delegatecall requests again (the default)
  apps grant-safe-config <id>        let the app change its Safes' owners, modules, guards and handler (calls to the
                                     Safe itself, delegatecalls, configuration calls)
  apps revoke-safe-config <id>       refuse those Safe calls again (the default: only the customer's key makes them)
${POLICY_USAGE}
  providers add <app-id> <provider> (--hs256-secret-file <file> | --public-key-file <pem> --alg RS256|ES256
                | --jwks-url <https-url> [--allow-insecure]) --issuer <iss> --audience <aud>
                                     let the app act for <provider>:<username> ids with JWTs of its identity service;
                                     every proof must carry this iss and aud; --allow-insecure admits an http://
                                     key set on a loopback host (localhost, 127.0.0.0/8, ::1) only
  providers list                     registered providers, removed ones too (never secrets)
  providers remove <provider>        its ids stop acting and lose their ENS names; the name is never given to
                                     another app
  maintenance on [--message <text>]  API routes answer 503 (health and CCIP keep working)
  maintenance off
  maintenance status
${DUST_USAGE}
${AUDIT_USAGE}
${KEYS_USAGE}
${WEBHOOKS_USAGE}
${CONSOLE_USAGE}
${DB_USAGE}

Settings: read as the service reads them, the environment over $CONFIG_FILE; with no CONFIG_FILE, the local stack's
<DATA_DIR or data>/local-stack.config.json if it exists (said on stderr). So SECRETS_KEY (which seals HS256 provider
secrets and webhook signing secrets, docs/auth.md), AUDIT_LOG_KEY and the WEBHOOK_* rules are the service's.
Database: --db <path or postgres:// URL>, else DATABASE_URL (PostgreSQL) or DATABASE_PATH (SQLite; not both), else
<DATA_DIR>/idwallet.sqlite (${DEFAULT_DATABASE_PATH}).`;

/** One admin action, already validated, so running it needs no further checks of the input. */
export type AdminCommand =
  | { readonly kind: "help" }
  | { readonly kind: "apps create"; readonly name: string; readonly testMode: boolean }
  | { readonly kind: "apps list" }
  | { readonly kind: "apps status"; readonly id: string; readonly status: "active" | "disabled" }
  | { readonly kind: "apps rotate-secret"; readonly id: string }
  | { readonly kind: "apps test-mode"; readonly id: string; readonly on: boolean }
  | { readonly kind: "apps grant-delegatecall" | "apps revoke-delegatecall"; readonly id: string }
  | { readonly kind: "apps grant-safe-config" | "apps revoke-safe-config"; readonly id: string }
  | { readonly kind: "apps policy"; readonly id: string; readonly changes: PolicyOptions | undefined }
  | {
      readonly kind: "providers add";
      readonly appId: string;
      readonly provider: string;
      readonly verification: ProviderVerification;
      readonly allowInsecure: boolean;
    }
  | { readonly kind: "providers list" }
  | { readonly kind: "providers remove"; readonly provider: string }
  | { readonly kind: "maintenance on"; readonly message?: string }
  | { readonly kind: "maintenance off" }
  | { readonly kind: "maintenance status" }
  | { readonly kind: "dust"; readonly command: DustCommand }
  | { readonly kind: "audit"; readonly command: AuditCommand }
  | { readonly kind: "keys"; readonly command: KeysCommand }
  | { readonly kind: "webhooks"; readonly command: WebhookCommand }
  | { readonly kind: "console"; readonly command: ConsoleCommand }
  | { readonly kind: "db"; readonly command: DbCommand };

/** The outcome of reading the command line: a command and database (file or URL), or what was wrong with it. */
export type ParsedAdminArgs =
  | { readonly ok: true; readonly dbPath: string; readonly command: AdminCommand }
  | { readonly ok: false; readonly error: string };

/**
 * Reads argv (without node and the script) into a command; `settings` supplies the service's database (AdminSettings'
 * `database`; the default file when not given), which `--db` replaces.
 */
export function parseAdminArgs(
  argv: readonly string[],
  settings: { readonly database: string } = { database: DEFAULT_DATABASE_PATH },
): ParsedAdminArgs {
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
        ...PROVIDER_OPTIONS,
        ...DUST_OPTIONS,
        ...POLICY_OPTIONS,
        ...AUDIT_OPTIONS,
        ...DB_OPTIONS,
        ...WEBHOOK_OPTIONS,
        ...CONSOLE_OPTIONS,
      },
    });
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) return { ok: true, dbPath: DEFAULT_DATABASE_PATH, command: { kind: "help" } };
  try {
    const dbPath = databaseOf(values.db, settings.database);
    const command = toCommand(positionals, values);
    // Options are accepted anywhere on the line, so refuse those the chosen command would silently ignore.
    if (values["test-mode"] !== undefined && command.kind !== "apps create") {
      throw new UsageError("option --test-mode applies only to apps create");
    }
    const stray = (Object.keys(PROVIDER_OPTIONS) as (keyof ProviderOptions)[]).find((o) => values[o] !== undefined);
    if (stray && command.kind !== "providers add")
      throw new UsageError(`option --${stray} applies only to providers add`);
    const dustStray = (Object.keys(DUST_OPTIONS) as (keyof DustOptions)[]).find((o) => values[o] !== undefined);
    if (dustStray && command.kind !== "dust")
      throw new UsageError(`option --${dustStray} applies only to dust commands`);
    const policyStray = (Object.keys(POLICY_OPTIONS) as (keyof PolicyOptions)[]).find((o) => values[o] !== undefined);
    if (policyStray && command.kind !== "apps policy")
      throw new UsageError(`option --${policyStray} applies only to apps policy`);
    const webhookStray = (Object.keys(WEBHOOK_OPTIONS) as (keyof WebhookOptions)[]).find(
      (o) => values[o] !== undefined,
    );
    if (webhookStray && command.kind !== "webhooks")
      throw new UsageError(`option --${webhookStray} applies only to webhooks commands`);
    if (values.label !== undefined && command.kind !== "console")
      throw new UsageError("option --label applies only to console open");
    if (values.to !== undefined && command.kind !== "db") throw new UsageError("option --to applies only to db copy");
    if (values.after !== undefined && command.kind !== "audit")
      throw new UsageError("option --after applies only to audit export");
    if (values.message !== undefined && command.kind !== "maintenance on") {
      throw new UsageError("option --message applies only to maintenance on");
    }
    return { ok: true, dbPath, command };
  } catch (error) {
    if (error instanceof UsageError || error instanceof DustUsageError) return { ok: false, error: error.message };
    throw error;
  }
}

function toCommand(
  positionals: string[],
  values: { message?: string; "test-mode"?: boolean; label?: string } & ProviderOptions &
    DustOptions &
    PolicyOptions &
    AuditOptions &
    DbOptions &
    WebhookOptions,
): AdminCommand {
  const [group, action, ...rest] = positionals;
  if (group === "dust") return { kind: "dust", command: parseDustCommand(action, rest[0], rest.slice(1), values) };
  if (group === "audit") return { kind: "audit", command: parseAuditCommand(action, rest, values) };
  if (group === "keys") return { kind: "keys", command: parseKeysCommand(action, rest) };
  if (group === "webhooks") return { kind: "webhooks", command: parseWebhookCommand(action, rest, values) };
  if (group === "db") return { kind: "db", command: parseDbCommand(action, rest, values) };
  if (group === "console" || (group === "requests" && action === "cancel"))
    return { kind: "console", command: parseConsoleCommand(group, action, rest, values) };
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
    case "apps grant-delegatecall":
    case "apps revoke-delegatecall":
    case "apps grant-safe-config":
    case "apps revoke-safe-config":
      return { kind: line, id: one() };
    case "apps policy": {
      const changes = Object.fromEntries(
        (Object.keys(POLICY_OPTIONS) as (keyof PolicyOptions)[])
          .filter((o) => values[o] !== undefined)
          .map((o) => [o, values[o]]),
      ) as PolicyOptions;
      return { kind: "apps policy", id: one(), changes: Object.keys(changes).length > 0 ? changes : undefined };
    }
    case "providers add": {
      const [appId = "", provider = ""] = takes(2);
      const name = ProviderName.safeParse(provider);
      if (!name.success) throw new UsageError(issues(name.error));
      return {
        kind: "providers add",
        appId,
        provider: name.data,
        verification: providerVerification(values),
        allowInsecure: values["allow-insecure"] ?? false,
      };
    }
    case "providers list":
      takes(0);
      return { kind: "providers list" };
    case "providers remove":
      return { kind: "providers remove", provider: one() };
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
