import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { RequestDeadline } from "../accept/requestDeadline";
import { trackRequest } from "./logging";
import type { Metrics } from "./metrics";
import { answerProblem } from "./problemHandler";
import { startDeadline } from "./requestTimeout";
import type { ResponseHeaders } from "./responseHeaders";

const noop = () => undefined;

/** What serving an API request outside express takes of the app: its log, metrics, headers, body limit, deadline. */
export interface ExchangeSettings {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly headers: ResponseHeaders;
  readonly bodyLimit: string;
  readonly requestTimeoutMs: number;
}

/** An API request being served on plain node:http. */
export interface Exchange {
  /** The request's deadline: past it the answer is 408 or 503 and nothing is committed after. */
  readonly deadline: RequestDeadline;
  /** Answers `error` as its problem (answerProblem: a 5xx logged), or ends an answer already begun. */
  readonly fail: (error: unknown) => void;
}

/**
 * Starts serving an API request on plain node:http with the parts the express app's base middleware runs (app.ts,
 * baseMiddleware), the same functions: the request id in X-Request-Id and the access line of `path` (trackRequest),
 * its time under `route` (its pattern, metrics.timeRequest), helmet's and CORS headers, and its deadline
 * (startDeadline), answered 408 or 503 by answerProblem if nothing else has answered by then.
 */
export function openExchange(
  settings: ExchangeSettings,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  path: string,
): Exchange {
  const { id, log } = trackRequest(settings.logger, req, res, () => path);
  res.setHeader("X-Request-Id", id);
  const timed = settings.metrics.timeRequest(req.method);
  res.on("finish", () => timed(route, res.statusCode));
  settings.headers.security(req, res, noop);
  settings.headers.cors(req, res, noop);
  const context = { instance: req.url ?? path, requestId: id, bodyLimit: settings.bodyLimit, log };
  const fail = (error: unknown) => answerProblem(res, error, context);
  return { deadline: startDeadline(req, res, settings.requestTimeoutMs, fail), fail };
}
