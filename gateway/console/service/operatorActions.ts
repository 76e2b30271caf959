import type { App, AppStatus } from "../../auth/app";
import type { AppsRepository } from "../../auth/appsRepository";
import type { PolicySettings } from "../../config/policySettings";
import type { SettingsRepository } from "../../config/settingsRepository";
import {
  CANCELLED_BY_OPERATOR,
  type CancelOutcome,
  type TransactionsRepository,
} from "../../transactions/transactionsRepository";
import type { WebhooksRepository } from "../../webhooks/webhooksRepository";
import type { ConsoleRepository } from "../consoleRepository";

/** What the operator actions change, and where each is recorded: one code path for the console and the admin CLI. */
export interface OperatorDeps {
  readonly apps: Pick<AppsRepository, "findById" | "setStatus" | "setPolicy">;
  readonly settings: Pick<SettingsRepository, "setMaintenance">;
  readonly webhooks: Pick<WebhooksRepository, "setStatus" | "redeliver">;
  readonly transactions: Pick<TransactionsRepository, "cancelQueued">;
  readonly journal: Pick<ConsoleRepository, "recordAction">;
  readonly clock: () => Date;
  /** Told once maintenance changed: the service re-reads the switch at once instead of at its next poll. */
  readonly onMaintenance?: () => Promise<void>;
}

/** An action the service refuses, with what the operator should know; recorded as refused, nothing changed. */
export class OperatorRefusal extends Error {
  override readonly name = "OperatorRefusal";
}

/**
 * Runs `work` and records it in the operators' action log (issue 38: who, when, what, the result), a refusal or
 * failure too; the error is rethrown for the caller to show.
 */
async function audited<T>(
  deps: OperatorDeps,
  who: string,
  what: { readonly action: string; readonly target: string; readonly detail?: string },
  work: () => Promise<T>,
): Promise<T> {
  const record = (result: string) =>
    deps.journal.recordAction({ at: deps.clock().toISOString(), who, detail: undefined, ...what, result });
  try {
    const done = await work();
    await record("done");
    return done;
  } catch (error) {
    await record(`${error instanceof OperatorRefusal ? "refused" : "failed"}: ${(error as Error).message}`);
    throw error;
  }
}

/** Enters or leaves maintenance mode (the API answers 503; health, CCIP and the console stay up). */
export const setMaintenance = (deps: OperatorDeps, who: string, on: boolean, message?: string): Promise<void> =>
  audited(
    deps,
    who,
    { action: on ? "maintenance on" : "maintenance off", target: "service", detail: message },
    async () => {
      await deps.settings.setMaintenance(on, message);
      await deps.onMaintenance?.();
    },
  );

/** Disables an app (its credentials and tokens are refused) or enables it again. */
export const setAppStatus = (deps: OperatorDeps, who: string, appId: string, status: AppStatus): Promise<App> =>
  audited(deps, who, { action: status === "active" ? "app enable" : "app disable", target: appId }, () =>
    deps.apps.setStatus(appId, status),
  );

/** Changes an app's own policy settings by `change` (what it leaves unset takes the deployment's default). */
export const setAppPolicy = (
  deps: OperatorDeps,
  who: string,
  appId: string,
  change: (policy: PolicySettings) => PolicySettings,
  detail: string,
): Promise<App> =>
  audited(deps, who, { action: "app policy", target: appId, detail }, async () => {
    const app = await deps.apps.findById(appId);
    if (!app) throw new OperatorRefusal(`app ${JSON.stringify(appId)} not found`);
    return deps.apps.setPolicy(appId, change(app.policy));
  });

/** Raises or lowers an app's gas budget per chain and period; undefined: the deployment's default again. */
export const setAppBudget = (deps: OperatorDeps, who: string, appId: string, budgetGas: bigint | undefined) =>
  setAppPolicy(
    deps,
    who,
    appId,
    (policy) => ({ ...policy, budgetGas }),
    budgetGas === undefined ? "budget: default" : `budget: ${budgetGas} gas`,
  );

/** Enables a disabled webhook endpoint: what it is owed is due at once. */
export const enableWebhookEndpoint = (deps: OperatorDeps, who: string, endpointId: string): Promise<void> =>
  audited(deps, who, { action: "webhook enable", target: endpointId }, async () => {
    if (!(await deps.webhooks.setStatus(endpointId, { enabled: true })))
      throw new OperatorRefusal(`webhook endpoint ${JSON.stringify(endpointId)} not found`);
  });

/** Queues an event again for every endpoint it was owed to; how many. */
export const redeliverEvent = (deps: OperatorDeps, who: string, eventId: string): Promise<number> =>
  audited(deps, who, { action: "webhook redeliver", target: eventId }, async () => {
    const queued = await deps.webhooks.redeliver(eventId);
    // Removing an endpoint removes what it was owed, so an event of removed endpoints has nothing to queue either.
    if (queued === 0)
      throw new OperatorRefusal(
        `no delivery of event "${eventId}" to queue: no such event, or it is owed to no endpoint`,
      );
    return queued;
  });

const CANCEL_REFUSALS: Readonly<Record<Exclude<CancelOutcome, "cancelled">, (id: string) => string>> = {
  missing: (id) => `request ${JSON.stringify(id)} not found`,
  built: (id) =>
    `request ${id} was built or sent already: a signed build of it may still be included, so it cannot be cancelled`,
  final: (id) => `request ${id} is final already (included or failed)`,
};

/**
 * Cancels a request still waiting in the queue, never built: it becomes failed (CANCELLED_BY_OPERATOR), the gas it
 * reserved is released and its app's endpoints get the `failed` event. Anything further along is refused.
 */
export const cancelRequest = (deps: OperatorDeps, who: string, txId: string): Promise<void> =>
  audited(deps, who, { action: "request cancel", target: txId }, async () => {
    const outcome = await deps.transactions.cancelQueued(txId, {
      code: CANCELLED_BY_OPERATOR,
      message: "cancelled by the operator while queued",
    });
    if (outcome !== "cancelled") throw new OperatorRefusal(CANCEL_REFUSALS[outcome](txId));
  });
