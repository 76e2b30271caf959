import type { Logger } from "pino";
import { z } from "zod";
import { SmsDeliveryFailedError, type SmsSender } from "./smsSender";

/** How long the provider may take to accept a message. */
export const SMS_HTTP_TIMEOUT_MS = 10_000;

// Twilio's Messages resource answers the created message; its `sid` is the message id.
const MessageCreated = z.object({ sid: z.string().min(1) });

/** Settings of a Twilio-style REST SMS API. */
export interface HttpSmsOptions {
  /** API base, e.g. https://api.twilio.com/2010-04-01 */
  readonly httpUrl: string;
  readonly accountSid: string;
  readonly authToken: string;
  /** Sender number or id. */
  readonly from: string;
  readonly timeoutMs?: number;
}

/**
 * Sends through a Twilio-style API: POST {httpUrl}/Accounts/{sid}/Messages.json, form-encoded To/From/Body, HTTP
 * Basic auth. Anything but a 2xx with a `sid`, or no answer in time, is SmsDeliveryFailedError. Logs the status
 * only: the provider's body may echo the number.
 */
export class HttpSmsSender implements SmsSender {
  private readonly url: string;
  private readonly authorization: string;

  constructor(
    private readonly options: HttpSmsOptions,
    private readonly logger: Logger,
  ) {
    const base = options.httpUrl.replace(/\/+$/, "");
    this.url = `${base}/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString("base64")}`;
  }

  async send(to: string, text: string): Promise<{ messageId: string }> {
    const timeoutMs = this.options.timeoutMs ?? SMS_HTTP_TIMEOUT_MS;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: {
          Authorization: this.authorization,
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
        },
        body: new URLSearchParams({ To: to, From: this.options.from, Body: text }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "error",
      });
    } catch (error) {
      const reason = error instanceof Error && error.name === "TimeoutError" ? "timeout" : "unreachable";
      this.logger.warn({ reason }, "SMS provider did not answer");
      throw new SmsDeliveryFailedError();
    }
    const body: unknown = await response.json().catch(() => undefined);
    const created = MessageCreated.safeParse(body);
    if (!response.ok || !created.success) {
      this.logger.warn({ status: response.status }, "SMS provider refused the message");
      throw new SmsDeliveryFailedError();
    }
    this.logger.info({ messageId: created.data.sid }, "SMS accepted by the provider");
    return { messageId: created.data.sid };
  }
}
