import type { Logger } from "pino";
import type { Config } from "../../config/schema";
import { HttpSmsSender } from "./httpSmsSender";
import { OutboxSmsSender } from "./outboxSmsSender";
import type { SmsSender } from "./smsSender";

export { HttpSmsSender, type HttpSmsOptions } from "./httpSmsSender";
export { OutboxSmsSender } from "./outboxSmsSender";
export { SmsDeliveryFailedError, type SmsSender } from "./smsSender";

/** The configured SMS sender: the outbox file (local stack) or a Twilio-style HTTP API. */
export function createSmsSender(
  config: Config["sms"],
  logger: Logger,
  clock: () => Date = () => new Date(),
): SmsSender {
  if (config.provider === "http") {
    const { httpUrl, accountSid, authToken, from } = config;
    // The config schema already refuses an http provider without these; this narrows the types.
    if (!httpUrl || !accountSid || !authToken || !from) {
      throw new Error("the http SMS provider needs SMS_HTTP_URL, SMS_ACCOUNT_SID, SMS_AUTH_TOKEN and SMS_FROM");
    }
    return new HttpSmsSender({ httpUrl, accountSid, authToken, from }, logger);
  }
  if (!config.outboxPath) throw new Error("the outbox SMS provider needs SMS_OUTBOX_PATH");
  return new OutboxSmsSender(config.outboxPath, logger, clock);
}
