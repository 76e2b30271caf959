import { randomUUID } from "node:crypto";
import { appendFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { makePrivateDirectory, makePrivateFile } from "../../crypto/privateFiles";
import type { SmsSender } from "./smsSender";

/**
 * The local stack's "SMS provider" (design §7): appends one JSON object per message to a file, which is the dev
 * inbox. The log line names the message id only, never the number or the text with its code (invariant 6). The file
 * holds live login codes, so it is private (0600, in a 0700 directory if it creates one).
 */
export class OutboxSmsSender implements SmsSender {
  private fileReady = false;

  constructor(
    private readonly outboxPath: string,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async send(to: string, text: string): Promise<{ messageId: string }> {
    if (!this.fileReady) {
      makePrivateDirectory(path.dirname(path.resolve(this.outboxPath)));
      makePrivateFile(this.outboxPath);
      this.fileReady = true;
    }
    const messageId = `outbox_${randomUUID()}`;
    // One write of one whole line: appends from concurrent requests never interleave.
    const line = `${JSON.stringify({ time: this.clock().toISOString(), to, text, messageId })}\n`;
    // 0600 also when the file was removed since (rotated, cleared) and this append creates it again.
    await appendFile(this.outboxPath, line, { encoding: "utf8", mode: 0o600 });
    this.logger.info({ messageId, outbox: this.outboxPath }, "SMS written to the outbox");
    return { messageId };
  }
}
