import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import pino, { type DestinationStream, type Logger } from "pino";
import { pinoHttp } from "pino-http";

/** Paths redacted from every log line: credentials, user proofs and phone numbers (invariant 6). */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-api-key']",
  "*.auth",
  "*.client_secret",
  "*.clientSecret",
  "*.secret",
  "*.token",
  "*.access_token",
  "*.phone",
  "*.password",
];

/** The service's structured logger (to stdout unless a destination is given). */
export const createLogger = (level: string, destination?: DestinationStream): Logger =>
  pino({ level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination);

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Per-request child loggers with a request id (a sane incoming X-Request-Id, or a new UUID). */
export const requestLogging = (logger: Logger) =>
  pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    // Query strings may carry user ids or codes: log the path only.
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split("?")[0],
      }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : "info"),
  });
