import { randomUUID } from "node:crypto";
import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { SmsSender } from "./smsSender";

/**
 * The local stack's "SMS provider" (design §7): appends one JSON object per message to a file, which is the dev
 * inbox. The log line names the message id only, never the number or the text with its code (invariant 6).
 */
export class OutboxSmsSender implements SmsSender {
  private directoryReady: Promise<unknown> | undefined;

  constructor(
    private readonly outboxPath: string,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async send(to: string, text: string): Promise<{ messageId: string }> {
    this.directoryReady ??= mkdir(path.dirname(path.resolve(this.outboxPath)), { recursive: true });
    await this.directoryReady;
    const messageId = `outbox_${randomUUID()}`;
    // One write of one whole line: appends from concurrent requests never interleave.
    const line = `${JSON.stringify({ time: this.clock().toISOString(), to, text, messageId })}\n`;
    await appendFile(this.outboxPath, line, "utf8");
    this.logger.info({ messageId, outbox: this.outboxPath }, "SMS written to the outbox");
    return { messageId };
  }
}
