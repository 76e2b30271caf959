import { envNameOf } from "../../gateway/config/load";
import { WebhookSettings } from "../../gateway/config/webhookSettings";

/** A WEBHOOK_* setting the service would refuse to start with: the CLI refuses it too. */
export class WebhookSettingsError extends Error {
  override readonly name = "WebhookSettingsError";
}

/**
 * The service's webhook settings from the WEBHOOK_* variables, so the CLI allows the URLs and makes the attempts the
 * service would. The variable names come from the service's own table (envNameOf), so a new setting needs no edit here.
 */
export function webhookSettingsOf(env: NodeJS.ProcessEnv): WebhookSettings {
  const defaults = WebhookSettings.parse(undefined);
  const raw: Record<string, unknown> = {};
  for (const [key, fallback] of Object.entries(defaults)) {
    const value = env[envNameOf(["webhooks", key])];
    if (value === undefined || value === "") continue;
    // Lists are comma-separated, as the service reads them.
    raw[key] = Array.isArray(fallback) ? value.split(",").map((item) => item.trim()) : value;
  }
  const parsed = WebhookSettings.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new WebhookSettingsError(`${envNameOf(["webhooks", ...issue.path])}: ${issue.message}`);
}
