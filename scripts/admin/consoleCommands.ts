import { consoleServed } from "../../gateway/config/consoleSettings";
import { createConsoleLink } from "../../gateway/console/service/consoleLinks";
import { type OperatorDeps, cancelRequest } from "../../gateway/console/service/operatorActions";
import type { Repositories } from "../../gateway/storage/repositories";
import type { AdminSettings } from "./adminSettings";
import type { ConsoleCommand } from "./consoleArgs";

/** Who the operator action log names for what the CLI did. */
export const CLI_OPERATOR = "cli";

/** Where a console command writes. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** The operator actions over the CLI's repositories: the same functions the console runs (console/service/). */
export const operatorDepsOf = (
  repos: Pick<Repositories, "apps" | "settings" | "webhooks" | "transactions" | "console">,
  clock: () => Date,
): OperatorDeps => ({
  apps: repos.apps,
  settings: repos.settings,
  webhooks: repos.webhooks,
  transactions: repos.transactions,
  journal: repos.console,
  clock,
});

/** Where the service is reached: PUBLIC_URL, else its HOST and PORT. */
const serviceUrl = (settings: AdminSettings): string =>
  (settings.publicUrl ?? `http://${settings.host}:${settings.port}`).replace(/\/+$/, "");

/** Runs one console command. */
export async function runConsoleCommand(
  command: ConsoleCommand,
  repos: Repositories,
  settings: AdminSettings,
  output: Output,
  clock: () => Date,
): Promise<void> {
  switch (command.kind) {
    case "open": {
      const link = await createConsoleLink(repos.console, clock, settings.console.linkTtlSeconds, command.label);
      output.out(`${serviceUrl(settings)}${link.path}`);
      output.err(`Opens one console session as "${command.label}", once, until ${link.expiresAt.toISOString()}.`);
      if (!consoleServed(settings.console))
        output.err("The console is not served yet: set CONSOLE_ENABLED=true (or CONSOLE_TOKEN) for the service.");
      return;
    }
    case "actions": {
      const actions = await repos.console.recentActions(50);
      if (actions.length === 0) return output.out("No operator actions recorded.");
      for (const a of actions) {
        output.out(`${a.at}  ${a.who}  ${a.action} ${a.target}${a.detail ? ` (${a.detail})` : ""}: ${a.result}`);
      }
      return;
    }
    case "close-sessions": {
      const closed = await repos.console.closeAllSessions(clock());
      await repos.console.recordAction({
        at: clock().toISOString(),
        who: CLI_OPERATOR,
        action: "console close sessions",
        target: "console",
        detail: `${closed} open`,
        result: "done",
      });
      return output.out(`Closed ${closed} open console session(s) and every unused link.`);
    }
    case "cancel":
      await cancelRequest(operatorDepsOf(repos, clock), CLI_OPERATOR, command.txId);
      return output.out(`Cancelled request ${command.txId}: it failed with CANCELLED_BY_OPERATOR, its gas released.`);
  }
}
