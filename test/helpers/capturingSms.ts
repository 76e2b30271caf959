import type { SmsSender } from "../../gateway/auth/sms/smsSender";

/** A test double of the SMS provider: keeps every message and answers a message id. */
export class CapturingSms implements SmsSender {
  readonly sent: { to: string; text: string }[] = [];

  async send(to: string, text: string): Promise<{ messageId: string }> {
    this.sent.push({ to, text });
    return { messageId: `test_${this.sent.length}` };
  }

  /** The 6-digit code of the last message. */
  lastCode(): string {
    const text = this.sent.at(-1)?.text ?? "";
    const match = /\b(\d{6})\b/.exec(text);
    if (!match) throw new Error(`no code in ${JSON.stringify(text)}`);
    return match[1]!;
  }
}
