import { SecretsKeyError } from "../../gateway/crypto/secretsKeyring";
import type { App, AppWithSecret } from "../../gateway/auth/app";
import { NotFoundError } from "../../gateway/storage/errors";
import { ProviderTakenError } from "../../gateway/identity/providersRepository";
import type { Repositories } from "../../gateway/storage/repositories";
import { USAGE, type AdminCommand } from "./args";
import { DustUsageError } from "./dustArgs";
import { PolicyUsageError, changedPolicy } from "./policyArgs";
import { formatRate } from "../../gateway/config/policySettings";
import { runDustCommand } from "./dustCommands";
import { runAuditCommand } from "./auditCommands";
import { KeysCommandError, runKeysCommand } from "./keysCommands";
import { WebhookCommandError, runWebhookCommand } from "./webhookCommands";
import { type AdminSettings, loadAdminSettings } from "./adminSettings";
import { CLI_OPERATOR, operatorDepsOf, runConsoleCommand } from "./consoleCommands";
import {
  OperatorRefusal,
  setAppPolicy,
  setAppStatus,
  setMaintenance,
} from "../../gateway/console/service/operatorActions";

/** Where commands write: `out` for results, `err` for diagnostics; each call is one line or block. */
export interface AdminOutput {
  out(text: string): void;
  err(text: string): void;
}

/** Process exit codes of the admin CLI: `failed` when `audit verify` finds the chain broken or `webhooks test` fails. */
export const EXIT = { ok: 0, notFound: 1, failed: 1, usage: 2 } as const;

const SECRET_WARNING =
  "Store this client secret now: it is shown only this once and is not stored (only its hash is). " +
  "If it is lost, issue a new one with `apps rotate-secret`.";

/** Renders rows as left-aligned columns under a header, two spaces apart. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

const summarize = (app: App): string =>
  `${app.id} "${app.name}" (client id ${app.clientId}, ${app.status}, test mode ${app.testMode ? "on" : "off"}, ` +
  `delegatecall ${app.delegatecallGranted ? "granted" : "not granted"})`;

/** The app's own settings, one a line; what it did not set takes the deployment's default (POLICY_DEFAULT_*). */
function describePolicy(app: App): string {
  const p = app.policy;
  const line = (name: string, value: string | undefined) => `  ${name.padEnd(20)}${value ?? "default"}`;
  return [
    line("budget (gas/chain)", p.budgetGas?.toString()),
    line("period (s)", p.periodSeconds?.toString()),
    line("rate", p.rate && formatRate(p.rate)),
    line("chains", p.chains?.join(",") ?? "any"),
    line("targets", p.targets?.join(",") ?? "any"),
    line("max value (wei)", p.maxValueWei?.toString() ?? "any"),
    line("user daily cap (gas)", p.userDailyCapGas?.toString()),
    ...(app.testMode ? ["  (test mode: never more than the defaults)"] : []),
  ].join("\n");
}

const printCredentials = (output: AdminOutput, { app, clientSecret }: AppWithSecret): void => {
  output.out(`  id:            ${app.id}\n  client id:     ${app.clientId}\n  client secret: ${clientSecret}`);
  output.err(SECRET_WARNING);
};

/** What commands read besides their arguments: the service's settings, and the environment (ADMIN_PRIVATE_KEY). */
export interface AdminContext {
  readonly settings: AdminSettings;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Runs one parsed command against the repositories and returns the process exit code. */
export async function runAdminCommand(
  command: AdminCommand,
  repos: Repositories,
  output: AdminOutput,
  clock: () => Date = () => new Date(),
  { settings, env }: AdminContext = { settings: loadAdminSettings({}), env: {} },
): Promise<number> {
  try {
    if (command.kind === "keys") {
      await runKeysCommand(command.command, repos, settings, env, output, clock);
      return EXIT.ok;
    }
    if (command.kind === "audit") {
      const verified = await runAuditCommand(command.command, repos.auditLog, output, settings.auditLogKey);
      // The console's overview shows when the log was last verified, and how it ended.
      if (command.command.kind === "verify") {
        const result = verified ? "verifies" : "broken or not checked";
        const at = clock().toISOString();
        await repos.console.recordAction({
          at,
          who: CLI_OPERATOR,
          action: "audit verify",
          target: "signature audit log",
          detail: undefined,
          result,
        });
      }
      return verified ? EXIT.ok : EXIT.failed;
    }
    if (command.kind === "console") {
      await runConsoleCommand(command.command, repos, settings, output, clock);
      return EXIT.ok;
    }
    if (command.kind === "webhooks") {
      const done = await runWebhookCommand(command.command, repos, settings, output, clock, formatTable);
      return done ? EXIT.ok : EXIT.failed;
    }
    // `db` commands open their own databases (scripts/admin/dbCommands.ts); the CLI runs them before this.
    if (command.kind === "db") throw new Error("db commands do not run on one database's repositories");
    if (command.kind === "dust") await runDustCommand(command.command, repos.dust, output, clock, formatTable);
    else await execute(command, repos, output, clock);
    return EXIT.ok;
  } catch (error) {
    if (
      error instanceof ProviderTakenError ||
      error instanceof DustUsageError ||
      error instanceof PolicyUsageError ||
      error instanceof SecretsKeyError
    ) {
      output.err(`Error: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof KeysCommandError || error instanceof WebhookCommandError || error instanceof OperatorRefusal) {
      output.err(`Error: ${error.message}`);
      return EXIT.failed;
    }
    if (!(error instanceof NotFoundError)) throw error;
    output.err(`Error: ${error.message}`);
    return EXIT.notFound;
  }
}

async function execute(
  command: Exclude<AdminCommand, { kind: "dust" | "audit" | "keys" | "db" | "webhooks" | "console" }>,
  repos: Repositories,
  output: AdminOutput,
  clock: () => Date,
): Promise<void> {
  const { apps, settings, providers } = repos;
  // The operator actions the console offers too run through the same functions, recorded in the action log.
  const operator = operatorDepsOf(repos, clock);
  switch (command.kind) {
    case "help":
      return output.out(USAGE);
    case "apps create": {
      const created = await apps.create({ name: command.name, testMode: command.testMode });
      output.out(`Created app ${summarize(created.app)}`);
      return printCredentials(output, created);
    }
    case "apps list": {
      const all = await apps.list();
      if (all.length === 0) return output.out("No apps.");
      const header = [
        "ID",
        "NAME",
        "CLIENT ID",
        "STATUS",
        "TEST MODE",
        "DELEGATECALL",
        "SAFE CONFIG",
        "CREATED",
        "SECRET ROTATED",
      ];
      const rows = all.map((app) => [
        app.id,
        app.name,
        app.clientId,
        app.status,
        app.testMode ? "on" : "off",
        app.delegatecallGranted ? "granted" : "-",
        app.safeConfigGranted ? "granted" : "-",
        app.createdAt,
        app.secretRotatedAt,
      ]);
      return output.out(formatTable(header, rows));
    }
    case "apps status": {
      const app = await setAppStatus(operator, CLI_OPERATOR, command.id, command.status);
      return output.out(`${command.status === "active" ? "Enabled" : "Disabled"} app ${summarize(app)}`);
    }
    case "apps rotate-secret": {
      const rotated = await apps.rotateSecret(command.id);
      output.out(
        `Rotated the secret of app ${summarize(rotated.app)}; the old secret and every token issued before no longer work.`,
      );
      return printCredentials(output, rotated);
    }
    case "apps test-mode": {
      const app = await apps.setTestMode(command.id, command.on);
      return output.out(`Test mode ${command.on ? "on" : "off"} for app ${summarize(app)}`);
    }
    case "apps grant-delegatecall":
    case "apps revoke-delegatecall": {
      const granted = command.kind === "apps grant-delegatecall";
      const app = await apps.setDelegatecallGrant(command.id, granted);
      return output.out(`${granted ? "Granted" : "Revoked"} delegatecall for app ${summarize(app)}`);
    }
    case "apps grant-safe-config":
    case "apps revoke-safe-config": {
      const granted = command.kind === "apps grant-safe-config";
      const app = await apps.setSafeConfigGrant(command.id, granted);
      return output.out(`${granted ? "Granted" : "Revoked"} Safe configuration calls for app ${summarize(app)}`);
    }
    case "apps policy": {
      const found = await apps.findById(command.id);
      if (!found) throw new NotFoundError("app", command.id);
      const changes = command.changes;
      const app = changes
        ? await setAppPolicy(
            operator,
            CLI_OPERATOR,
            command.id,
            (policy) => changedPolicy(policy, changes),
            "apps policy",
          )
        : found;
      return output.out(`${command.changes ? "Set" : "Policy of"} app ${app.id}:\n${describePolicy(app)}`);
    }
    case "providers add": {
      const registered = await providers.register(command.appId, command.provider, command.verification, {
        allowInsecure: command.allowInsecure,
      });
      return output.out(
        `Registered provider ${registered.provider} for app ${registered.appId} (${registered.key.kind})`,
      );
    }
    case "providers list": {
      const all = await providers.list();
      if (all.length === 0) return output.out("No providers.");
      output.out(
        formatTable(
          ["PROVIDER", "APP", "KEY", "CREATED", "REMOVED", "ISSUER", "AUDIENCE"],
          all.map((p) => [
            p.provider,
            p.appId,
            p.kind,
            p.createdAt,
            p.disabledAt ?? "-",
            p.issuer ?? "-",
            p.audience ?? "-",
          ]),
        ),
      );
      const outdated = all.filter((p) => p.outdated && p.disabledAt === undefined).map((p) => p.provider);
      if (outdated.length > 0)
        output.err(
          `Proofs of ${outdated.join(", ")} are refused (PROVIDER_REGISTRATION_OUTDATED): registered without an issuer ` +
            "and audience, or with a plain-http key set. Run providers add again for each, with --issuer and " +
            "--audience (and an https key set).",
        );
      return;
    }
    case "providers remove": {
      if (!(await providers.remove(command.provider))) throw new NotFoundError("provider", command.provider);
      return output.out(
        `Removed provider ${command.provider}: its ids can no longer act; the name stays its app's (providers add by that app re-enables it)`,
      );
    }
    case "maintenance on":
      await setMaintenance(operator, CLI_OPERATOR, true, command.message);
      return output.out(`Maintenance mode on${command.message ? `: "${command.message}"` : ""}`);
    case "maintenance off":
      await setMaintenance(operator, CLI_OPERATOR, false);
      return output.out("Maintenance mode off");
    case "maintenance status": {
      const state = await settings.getMaintenance();
      const since = state.updatedAt ? ` since ${state.updatedAt}` : "";
      const message = state.message ? `\nMessage: ${state.message}` : "";
      return output.out(`Maintenance mode ${state.enabled ? "on" : "off"}${since}${message}`);
    }
  }
}
