import { ApiError } from "../../errors/apiError";

/** Delivers one text message; the only way login codes leave the service. */
export interface SmsSender {
  /** Sends `text` to `to` (E.164 with "+"); resolves with the provider's message id, or throws SmsDeliveryFailedError. */
  send(to: string, text: string): Promise<{ messageId: string }>;
}

/** 502: the SMS provider refused the message or did not answer in time. */
export class SmsDeliveryFailedError extends ApiError {
  constructor() {
    super(502, "SMS_DELIVERY_FAILED", "SMS delivery failed", "The code could not be sent; try again later");
  }
}
