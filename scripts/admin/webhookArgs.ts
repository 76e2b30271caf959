import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../../gateway/webhooks/webhookEvents";
import { UsageError } from "./usageError";

/** Attempts `webhooks deliveries` shows unless `--limit` says otherwise, and the most it shows. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** Usage lines of the webhook commands (part of the admin CLI's usage text). */
export const WEBHOOKS_USAGE = `  webhooks add <app-id> <url> [--events <type,type>]
                                     register a webhook endpoint for the app (every event unless --events); prints
                                     its signing secret once; the URL is checked by the service's WEBHOOK_* settings
  webhooks list [<app-id>]           endpoints, all or one app's (never secrets)
  webhooks remove <endpoint-id>      the endpoint and every delivery still owed to it
  webhooks rotate-secret <endpoint-id> [--revoke-old]
                                     a new signing secret, printed once; the old one signs beside it for
                                     WEBHOOK_SECRET_OVERLAP_SECONDS (a day), or stops at once with --revoke-old
  webhooks enable <endpoint-id>      re-enable a disabled endpoint: what it is owed is due at once
  webhooks disable <endpoint-id>     send the endpoint nothing until it is enabled again
  webhooks test <endpoint-id>        send it a webhook.test event now, signed and recorded like any other; exits 1
                                     unless it was delivered (a failed one is retried on the service's schedule)
  webhooks deliveries <endpoint-id> [--limit <n>]
                                     its latest delivery attempts, newest first (default ${DEFAULT_LIMIT})
  webhooks redeliver <event-id>      queue an event again, from the start of the schedule, for every endpoint it was
                                     owed to`;

/** The option names of the webhook commands, with their parseArgs types. */
export const WEBHOOK_OPTIONS = {
  events: { type: "string" },
  limit: { type: "string" },
  "revoke-old": { type: "boolean" },
} as const;

/** The options the webhook commands read. */
export interface WebhookOptions {
  events?: string;
  limit?: string;
  "revoke-old"?: boolean;
}

/** One webhook admin action, validated. */
export type WebhookCommand =
  | {
      readonly kind: "add";
      readonly appId: string;
      readonly url: string;
      readonly events: readonly WebhookEventType[];
    }
  | { readonly kind: "list"; readonly appId: string | undefined }
  | { readonly kind: "remove" | "enable" | "disable" | "test"; readonly endpointId: string }
  | { readonly kind: "rotate-secret"; readonly endpointId: string; readonly revokeOld: boolean }
  | { readonly kind: "deliveries"; readonly endpointId: string; readonly limit: number }
  | { readonly kind: "redeliver"; readonly eventId: string };

const ONE_ENDPOINT = ["remove", "rotate-secret", "enable", "disable", "test"] as const;
const ACTIONS = ["add", "list", ...ONE_ENDPOINT, "deliveries", "redeliver"] as const;

/** `--events a,b`: known event types only, so a typo is not a subscription to nothing. */
function eventTypes(text: string): WebhookEventType[] {
  const types = text.split(",").map((type) => type.trim());
  const unknown = types.find((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
  if (unknown !== undefined) {
    throw new UsageError(`--events: unknown event type "${unknown}" (known: ${WEBHOOK_EVENT_TYPES.join(", ")})`);
  }
  return [...new Set(types as WebhookEventType[])];
}

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,4}$/.test(text) ? Number(text) : 0;
  if (limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be 1 to ${MAX_LIMIT}, got "${text}"`);
  return limit;
}

/** Reads `webhooks <action> …` into a command. */
export function parseWebhookCommand(
  action: string | undefined,
  rest: readonly string[],
  values: WebhookOptions,
): WebhookCommand {
  const known = ACTIONS.find((name) => name === action);
  if (known === undefined) {
    throw new UsageError(
      action === undefined ? `"webhooks" needs ${ACTIONS.join(", ")}` : `unknown command "webhooks ${action}"`,
    );
  }
  // Options are accepted anywhere on the line, so refuse those this command would silently ignore.
  if (values.events !== undefined && known !== "add")
    throw new UsageError("option --events applies only to webhooks add");
  if (values.limit !== undefined && known !== "deliveries") {
    throw new UsageError("option --limit applies only to webhooks deliveries");
  }
  if (values["revoke-old"] !== undefined && known !== "rotate-secret") {
    throw new UsageError("option --revoke-old applies only to webhooks rotate-secret");
  }
  const counts = known === "add" ? [2] : known === "list" ? [0, 1] : [1];
  if (!counts.includes(rest.length)) {
    throw new UsageError(`"webhooks ${known}" takes ${counts.join(" or ")} argument(s), got ${rest.length}`);
  }
  const [first = "", second = ""] = rest;
  switch (known) {
    case "add":
      return {
        kind: "add",
        appId: first,
        url: second,
        events: values.events === undefined ? [] : eventTypes(values.events),
      };
    case "list":
      return { kind: "list", appId: rest[0] };
    case "deliveries":
      return { kind: "deliveries", endpointId: first, limit: limitOf(values.limit) };
    case "redeliver":
      return { kind: "redeliver", eventId: first };
    case "rotate-secret":
      return { kind: "rotate-secret", endpointId: first, revokeOld: values["revoke-old"] === true };
    default:
      return { kind: known, endpointId: first };
  }
}
