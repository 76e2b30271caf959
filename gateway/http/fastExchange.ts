import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { AppPrincipal, AppTokens } from "../auth/appTokens";
import { RequestTimeoutError } from "../errors/apiError";
import { PROBLEM_JSON, problemFor } from "./problemHandler";
import { RequestDeadline } from "../accept/requestDeadline";
import { type AdmitApp, authenticate } from "./bearer";
import { sendJson } from "./jsonResponse";
import { logCompleted, requestIdOf } from "./logging";
import type { Metrics } from "./metrics";
import { timeoutError } from "./requestTimeout";
import type { ResponseHeaders } from "./responseHeaders";

const noop = () => undefined;

/** What serving a request on a node:http fast path takes of the app: its headers, metrics, log, tokens, limits. */
export interface FastPathDeps {
  readonly tokens: AppTokens;
  readonly admitApp: AdmitApp;
  readonly bodyLimit: string;
  readonly requestTimeoutMs: number;
  readonly headers: ResponseHeaders;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/** A request being served on a fast path. */
export interface FastExchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** The request's deadline: past it the answer is 408 or 503 and nothing is committed after. */
  readonly deadline: RequestDeadline;
  /** Answers `error` as the app's problem handler does (a 5xx logged), or ends an answer already begun. */
  readonly fail: (error: unknown) => void;
}

/**
 * Starts serving a request outside express as the express app's base middleware would for a route (app.ts,
 * baseMiddleware): the X-Request-Id, metrics under `route` (its pattern), the access line of `path`, helmet's and
 * CORS headers, and the request deadline, answered 408 or 503 if nothing else has answered by then.
 */
export function startExchange(
  deps: FastPathDeps,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  path: string,
): FastExchange {
  const id = requestIdOf(req);
  res.setHeader("X-Request-Id", id);
  const started = performance.now();
  const timed = deps.metrics.timeRequest(req.method);
  let log: Logger | undefined;
  const requestLog = () => (log ??= deps.logger.child({ reqId: id }));
  res.on("finish", () => {
    timed(route, res.statusCode);
    logCompleted(deps.logger, requestLog, { id, method: req.method, path }, res.statusCode, started);
  });
  deps.headers.security(req, res, noop);
  deps.headers.cors(req, res, noop);
  // As the problem handler (errors/problemHandler.ts), of which this is the fast path's copy.
  const fail = (error: unknown) => {
    // A handler that reached a commit after its deadline answered 503: stopped before writing, already logged.
    if (res.headersSent && error instanceof RequestTimeoutError) {
      requestLog().info("request stopped at its deadline before committing");
      return void res.end();
    }
    const problem = problemFor(error, req.url ?? path, id, deps.bodyLimit);
    if (problem.status >= 500) requestLog().error({ err: error, code: problem.body.code }, "request failed");
    if (res.headersSent) return void res.end();
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    sendJson(res, problem.status, JSON.stringify(problem.body), PROBLEM_JSON);
  };
  // As requestTimeout: a request that committed in time is answered by its handler, its effect being real.
  const deadline = new RequestDeadline(deps.requestTimeoutMs);
  const timer = setTimeout(() => {
    if (res.headersSent || !deadline.expire()) return;
    fail(timeoutError(req, deps.requestTimeoutMs));
  }, deps.requestTimeoutMs);
  timer.unref();
  res.on("close", () => clearTimeout(timer));
  return { req, res, deadline, fail };
}

/**
 * The app an `Authorization: Bearer` header authenticates, as bearerAuth does, then `next` with it; a request without
 * the header where none is `required` goes on at once, without a promise. A refusal is answered.
 */
export function authenticateFast(
  deps: FastPathDeps,
  exchange: FastExchange,
  required: boolean,
  next: (principal: AppPrincipal | undefined) => void,
): void {
  const header = exchange.req.headers.authorization;
  if (header === undefined && !required) return next(undefined);
  authenticate(header, deps.tokens, required, deps.admitApp).then(next, exchange.fail);
}
