import { z } from "zod";
import type { VNode } from "preact";
import { MaintenanceMessage } from "../../config/maintenance";
import { NotFoundError } from "../../storage/errors";
import {
  type OperatorDeps,
  OperatorRefusal,
  cancelRequest,
  enableWebhookEndpoint,
  redeliverEvent,
  setAppBudget,
  setAppStatus,
  setMaintenance,
} from "../service/operatorActions";
import type { OpenSession } from "./consoleAuth";
import { html } from "./consoleMarkup";

/** The fields an action's form posts (besides its CSRF token and the confirmation). */
const ActionFields = z.object({
  target: z.string().min(1).max(200).optional(),
  message: z.union([z.literal(""), MaintenanceMessage]).optional(),
  budget: z
    .string()
    .trim()
    .regex(/^(\d{1,30}|default)$/, "a whole number of gas, or default")
    .optional(),
});
type ActionFields = z.infer<typeof ActionFields>;

/** One console action: what its confirmation says, what it does (through the shared operator actions), where next. */
interface ConsoleAction {
  readonly needsTarget: boolean;
  readonly describe: (fields: ActionFields) => string;
  readonly run: (deps: OperatorDeps, who: string, fields: ActionFields & { target: string }) => Promise<string>;
  readonly back: (fields: ActionFields) => string;
}

const appPage = (f: ActionFields) => `/console/apps/${encodeURIComponent(f.target ?? "")}`;
const budgetOf = (f: ActionFields): bigint | undefined =>
  f.budget === undefined || f.budget === "default" ? undefined : BigInt(f.budget);

/** Every action the console offers, by the name in its URL; the CLI runs the same operator actions. */
const ACTIONS: Readonly<Record<string, ConsoleAction>> = {
  "maintenance-on": {
    needsTarget: false,
    describe: (f) =>
      `Enter maintenance${f.message ? ` with the message "${f.message}"` : ""}: every API route answers 503 until ` +
      "you leave it (health, the CCIP gateway and this console stay up).",
    run: (deps, who, f) => setMaintenance(deps, who, true, f.message || undefined).then(() => "Maintenance is on."),
    back: () => "/console",
  },
  "maintenance-off": {
    needsTarget: false,
    describe: () => "Leave maintenance: the API answers again.",
    run: (deps, who) => setMaintenance(deps, who, false).then(() => "Maintenance is off."),
    back: () => "/console",
  },
  "app-disable": {
    needsTarget: true,
    describe: (f) => `Disable app ${f.target}: its credentials and every token it holds are refused.`,
    run: (deps, who, f) => setAppStatus(deps, who, f.target, "disabled").then((app) => `Disabled app ${app.name}.`),
    back: appPage,
  },
  "app-enable": {
    needsTarget: true,
    describe: (f) => `Enable app ${f.target} again.`,
    run: (deps, who, f) => setAppStatus(deps, who, f.target, "active").then((app) => `Enabled app ${app.name}.`),
    back: appPage,
  },
  "app-budget": {
    needsTarget: true,
    describe: (f) => {
      const budget = budgetOf(f);
      return budget === undefined
        ? `Set app ${f.target}'s budget back to the deployment's default.`
        : `Set app ${f.target}'s budget to ${budget} gas per chain and period.`;
    },
    run: (deps, who, f) => setAppBudget(deps, who, f.target, budgetOf(f)).then(() => "Budget set."),
    back: appPage,
  },
  "webhook-enable": {
    needsTarget: true,
    describe: (f) => `Enable webhook endpoint ${f.target}: what it is owed is due at once.`,
    run: (deps, who, f) => enableWebhookEndpoint(deps, who, f.target).then(() => "Endpoint enabled."),
    back: () => "/console/webhooks",
  },
  redeliver: {
    needsTarget: true,
    describe: (f) => `Queue event ${f.target} again for every endpoint it was owed to.`,
    run: (deps, who, f) => redeliverEvent(deps, who, f.target).then((n) => `Queued again for ${n} endpoint(s).`),
    back: () => "/console/webhooks",
  },
  cancel: {
    needsTarget: true,
    describe: (f) =>
      `Cancel request ${f.target}: it fails with CANCELLED_BY_OPERATOR and the gas it reserved is released ` +
      "(only while it is queued and was never built).",
    run: (deps, who, f) => cancelRequest(deps, who, f.target).then(() => "Request cancelled."),
    back: (f) => `/console/requests/${encodeURIComponent(f.target ?? "")}`,
  },
};

/** What posting an action's form leads to: its confirmation, its result, or why it was not taken. */
export type ActionStep =
  | { readonly kind: "confirm"; readonly body: VNode }
  | { readonly kind: "done"; readonly message: string; readonly back: string }
  | { readonly kind: "refused"; readonly status: number; readonly message: string; readonly back: string };

/** Confirms an action (the first post) or runs it (the post of its confirmation, `confirm=yes`). */
export async function takeAction(
  name: string,
  form: Record<string, unknown>,
  session: OpenSession,
  deps: OperatorDeps,
): Promise<ActionStep | undefined> {
  const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
  if (!action) return undefined;
  const parsed = ActionFields.safeParse(form);
  if (!parsed.success || (action.needsTarget && parsed.data.target === undefined)) {
    const problem = parsed.success ? "which one is missing" : parsed.error.issues.map((i) => i.message).join("; ");
    return { kind: "refused", status: 400, message: `Not taken: ${problem}.`, back: "/console" };
  }
  const fields = parsed.data;
  if (form.confirm !== "yes") {
    const body = html`<div class="notice">${action.describe(fields)}</div>
      <form method="post" action=${`/console/actions/${name}`}>
        <input type="hidden" name="csrf" value=${session.csrf} />
        <input type="hidden" name="confirm" value="yes" />
        ${Object.entries(fields).map(([key, value]) => html`<input type="hidden" name=${key} value=${String(value)} />`)}
        <button type="submit" id="confirm">Confirm</button> <a href=${action.back(fields)}>Cancel</a>
      </form>`;
    return { kind: "confirm", body };
  }
  const back = action.back(fields);
  try {
    return {
      kind: "done",
      message: await action.run(deps, session.label, { ...fields, target: fields.target ?? "" }),
      back,
    };
  } catch (error) {
    if (error instanceof OperatorRefusal) return { kind: "refused", status: 409, message: error.message, back };
    if (error instanceof NotFoundError) return { kind: "refused", status: 404, message: error.message, back };
    throw error;
  }
}
