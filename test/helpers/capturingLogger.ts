import { Writable } from "node:stream";
import type { Logger } from "pino";
import { createLogger } from "../../gateway/http/logging";

/** The service's real logger (with its redaction) at debug level, writing every line into `lines`. */
export function capturingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return createLogger("debug", sink);
}
