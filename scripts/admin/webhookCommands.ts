import { ApiError } from "../../gateway/errors/apiError";
import { NotFoundError } from "../../gateway/storage/errors";
import type { Repositories } from "../../gateway/storage/repositories";
import type { WebhooksRepository } from "../../gateway/webhooks/webhooksRepository";
import type { DeliveryAttempt } from "../../gateway/webhooks/webhookDelivery";
import type { WebhookEndpoint } from "../../gateway/webhooks/webhookEndpoint";
import { registerEndpoint, rotateEndpointSecret } from "../../gateway/webhooks/webhookEndpoints";
import type { WebhookCommand } from "./webhookArgs";
import type { AdminSettings } from "./adminSettings";
import { sendTestEvent } from "./webhookTestCommand";
import { CLI_OPERATOR, operatorDepsOf } from "./consoleCommands";
import { enableWebhookEndpoint, redeliverEvent } from "../../gateway/console/service/operatorActions";

/** Where a webhook command writes: results on `out`, refusals and warnings on `err`. */
interface Output {
  out(text: string): void;
  err(text: string): void;
}

/** Renders rows as columns under a header (commands.ts's formatTable, passed in: commands.ts imports this file). */
type FormatTable = (header: readonly string[], rows: ReadonlyArray<readonly string[]>) => string;

/** A webhook command the service refuses (a URL it will not post to, too many endpoints, …); nothing was stored. */
export class WebhookCommandError extends Error {
  override readonly name = "WebhookCommandError";
}

/** The operator's own reason, told apart from the service's (a run of failures) in `webhooks list`. */
const OPERATOR_REASON = "disabled by the operator";

const SECRET_WARNING =
  "Store this signing secret now: it is shown only this once and will not be shown again (it is stored sealed). " +
  "If it is lost, make a new one with `webhooks rotate-secret`.";

const events = (endpoint: WebhookEndpoint): string =>
  endpoint.events.length === 0 ? "all" : endpoint.events.join(",");

const printSecret = (output: Output, endpointId: string, secret: string): void => {
  output.out(`  id:             ${endpointId}\n  signing secret: ${secret}`);
  output.err(SECRET_WARNING);
};

/** `webhooks list`: every column but the secret, which is never shown after it was made. */
const endpointsTable = (endpoints: readonly WebhookEndpoint[], formatTable: FormatTable): string =>
  formatTable(
    ["ID", "APP", "URL", "EVENTS", "STATUS", "FAILURES", "DISABLED REASON"],
    endpoints.map((e) => [
      e.id,
      e.appId,
      e.url,
      events(e),
      e.status,
      String(e.consecutiveFailures),
      e.disabledReason ?? "-",
    ]),
  );

/** `webhooks deliveries`: one attempt a row, with the state its delivery is in now. */
const attemptsTable = (attempts: readonly DeliveryAttempt[], formatTable: FormatTable): string =>
  formatTable(
    ["TIME", "EVENT", "TYPE", "ATTEMPT", "OUTCOME", "STATUS CODE", "ERROR", "DURATION", "DELIVERY NOW"],
    attempts.map((a) => [
      a.at,
      a.eventId,
      a.eventType,
      String(a.attempt),
      a.outcome,
      a.statusCode === undefined ? "-" : String(a.statusCode),
      a.error ?? "-",
      `${a.durationMs} ms`,
      a.deliveryStatus,
    ]),
  );

/** The endpoint, or NotFoundError (exit 1) naming it. */
async function endpointOf(webhooks: WebhooksRepository, id: string): Promise<WebhookEndpoint> {
  const endpoint = await webhooks.findEndpoint(id);
  if (endpoint === undefined) throw new NotFoundError("webhook endpoint", id);
  return endpoint;
}

/**
 * Runs one webhook command against the database (docs/webhooks.md). Resolves false when `test` made its attempt and
 * it was not delivered (the CLI exits 1), true otherwise.
 */
export async function runWebhookCommand(
  command: WebhookCommand,
  repos: Pick<Repositories, "apps" | "webhooks" | "settings" | "transactions" | "console">,
  settings: Pick<AdminSettings, "webhooks" | "secrets">,
  output: Output,
  clock: () => Date,
  formatTable: FormatTable,
): Promise<boolean> {
  const { webhooks } = repos;
  switch (command.kind) {
    case "add": {
      if ((await repos.apps.findById(command.appId)) === undefined) throw new NotFoundError("app", command.appId);
      const { endpoint, secret } = await registerEndpoint(webhooks, settings.webhooks, {
        appId: command.appId,
        url: command.url,
        events: command.events,
      }).catch((error: unknown) => {
        // The service's refusals (URL not allowed, too many endpoints, no SECRETS_KEY) carry the reason to print.
        throw error instanceof ApiError ? new WebhookCommandError(error.message) : error;
      });
      output.out(
        `Registered webhook endpoint ${endpoint.id} for app ${endpoint.appId}: ${endpoint.url} (events: ${events(endpoint)})`,
      );
      printSecret(output, endpoint.id, secret);
      return true;
    }
    case "list": {
      const all = await webhooks.listEndpoints(command.appId);
      if (all.length > 0) output.out(endpointsTable(all, formatTable));
      else output.out(`No webhook endpoints${command.appId === undefined ? "" : ` for app ${command.appId}`}.`);
      return true;
    }
    case "remove":
      if (!(await webhooks.removeEndpoint(command.endpointId)))
        throw new NotFoundError("webhook endpoint", command.endpointId);
      output.out(`Removed webhook endpoint ${command.endpointId} and every delivery still owed to it`);
      return true;
    case "rotate-secret": {
      const overlap = command.revokeOld ? 0 : settings.webhooks.secretOverlapSeconds;
      const secret = await rotateEndpointSecret(webhooks, command.endpointId, overlap);
      if (secret === undefined) throw new NotFoundError("webhook endpoint", command.endpointId);
      output.out(
        `Rotated the signing secret of webhook endpoint ${command.endpointId}: ` +
          (overlap === 0
            ? "the old one signs nothing more"
            : `the old one signs beside it for ${overlap} s more (each delivery carries both signatures)`),
      );
      printSecret(output, command.endpointId, secret);
      return true;
    }
    case "enable":
      // The console's action too: one code path, recorded in the operators' action log.
      await enableWebhookEndpoint(operatorDepsOf(repos, clock), CLI_OPERATOR, command.endpointId);
      output.out(`Enabled webhook endpoint ${command.endpointId}: what it is owed is due at once`);
      return true;
    case "disable":
      if (!(await webhooks.setStatus(command.endpointId, { enabled: false, reason: OPERATOR_REASON })))
        throw new NotFoundError("webhook endpoint", command.endpointId);
      output.out(`Disabled webhook endpoint ${command.endpointId}: it is sent nothing until enabled again`);
      return true;
    case "test": {
      const endpoint = await endpointOf(webhooks, command.endpointId);
      // A disabled endpoint's deliveries are not claimed: the test event would wait, owed, until it is enabled.
      if (endpoint.status === "disabled") {
        throw new WebhookCommandError(
          `webhook endpoint ${endpoint.id} is disabled (${endpoint.disabledReason ?? "no reason"}): enable it first`,
        );
      }
      // Without the key the secret cannot be opened: the event would be recorded and left for the service.
      if (settings.secrets.key === undefined)
        throw new WebhookCommandError("webhooks test signs with the endpoint's secret: set SECRETS_KEY");
      return sendTestEvent(webhooks, settings.webhooks, endpoint, output, clock);
    }
    case "deliveries": {
      await endpointOf(webhooks, command.endpointId);
      const attempts = await webhooks.attempts(command.endpointId, command.limit);
      if (attempts.length > 0) output.out(attemptsTable(attempts, formatTable));
      else output.out(`No delivery attempts to webhook endpoint ${command.endpointId} yet.`);
      return true;
    }
    case "redeliver": {
      const queued = await redeliverEvent(operatorDepsOf(repos, clock), CLI_OPERATOR, command.eventId);
      output.out(
        `Queued event ${command.eventId} again for ${queued} endpoint(s), due at once (a disabled endpoint once enabled)`,
      );
      return true;
    }
  }
}
