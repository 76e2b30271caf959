import type { DestinationStream, Logger } from "pino";
import { createLogger } from "../../gateway/http/logging";

/** pino's numeric levels and the words a person reads. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/** Fields every line carries that tell a person at a terminal nothing. */
const DROPPED = new Set(["level", "time", "msg", "pid", "hostname", "err"]);

const twoDigits = (n: number): string => String(n).padStart(2, "0");

/** A field's value as `key=value` shows it: plain text bare unless it has spaces, anything else as JSON. */
function fieldText(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]*$/.test(value) && value !== "" ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** A served request's line (`request completed`) as `POST /v1/kernel/tx → 202 in 57.1 ms`; undefined for others. */
function requestSummary(record: Record<string, unknown>): string | undefined {
  const req = record.req as { method?: unknown; path?: unknown } | undefined;
  const res = record.res as { statusCode?: unknown } | undefined;
  if (record.msg !== "request completed" || typeof req !== "object" || typeof res !== "object") return undefined;
  return `${String(req.method)} ${String(req.path)} → ${String(res.statusCode)} in ${String(record.responseTime)} ms`;
}

/**
 * One pino JSON line as a person reads it: `12:04:31 INFO  message  key=value …`, an error's stack on the lines
 * after. A line that is not a JSON object is returned as it is.
 */
export function readableLogLine(line: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return line;
  const record = entry as Record<string, unknown>;
  const at = new Date(typeof record.time === "number" ? record.time : Date.now());
  const clock = `${twoDigits(at.getHours())}:${twoDigits(at.getMinutes())}:${twoDigits(at.getSeconds())}`;
  const level = (typeof record.level === "number" && LEVEL_NAMES[record.level]) || String(record.level);
  const request = requestSummary(record);
  const fields = Object.entries(record)
    .filter(([key]) => !DROPPED.has(key) && !(request && ["req", "res", "responseTime"].includes(key)))
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const message = request ?? (typeof record.msg === "string" ? record.msg : "");
  let text = `${clock} ${level.padEnd(5)} ${message}${fields.length > 0 ? `  ${fields.join(" ")}` : ""}`;
  const err = record.err as { stack?: unknown; message?: unknown } | undefined;
  const detail = typeof err?.stack === "string" ? err.stack : typeof err?.message === "string" ? err.message : "";
  if (detail) text += `\n${detail.replace(/^/gm, "    ")}`;
  return text;
}

/** A pino destination writing each JSON line to `out` as readableLogLine shows it. */
export function readableLogStream(out: NodeJS.WritableStream): DestinationStream {
  return {
    write: (chunk: string) => {
      for (const line of chunk.split("\n")) if (line !== "") out.write(`${readableLogLine(line)}\n`);
    },
  };
}

/** How the local stack logs: `readable` (the default, for a terminal) or `json` (pino's lines, as a deployment logs). */
export type LogFormat = "readable" | "json";

/** LOG_FORMAT's value: unset or empty is readable. */
export function logFormat(value: string | undefined): LogFormat {
  if (value === undefined || value === "" || value === "readable") return "readable";
  if (value === "json") return "json";
  throw new Error(`LOG_FORMAT must be readable or json, not "${value}"`);
}

/** The local stack's logger at `level`, to stdout: readable lines, or JSON as `npm run serve` writes them. */
export const localStackLogger = (level: string, format: LogFormat): Logger =>
  createLogger(level, format === "json" ? undefined : readableLogStream(process.stdout));
