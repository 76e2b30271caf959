import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { AppTokens } from "../auth/appTokens";
import { InvalidRequestError, PayloadTooLargeError } from "../errors/apiError";
import { PROBLEM_JSON, problemFor } from "../errors/problemHandler";
import { ResolverRequest } from "../routes/resolver.schema";
import type { MaintenanceMonitor } from "../services/maintenance";
import { type ResolverOptions, resolveUserIds } from "../services/resolver";
import { type AdmitApp, authenticate } from "./bearer";
import type { NodeHandler } from "./nodeHandler";
import { logCompleted, requestIdOf } from "./logging";
import type { Metrics } from "./metrics";
import { sendJson } from "./jsonResponse";
import { timeoutError } from "./requestTimeout";
import type { ResponseHeaders } from "./responseHeaders";

/** The path served here; the express route of routes/resolver.ts serves it too, for the requests not taken here. */
export const RESOLVER_PATH = "/v1/resolver";

// The route's JSON media types as clients send them, in UTF-8 (express.json reads other charsets and the
// application/*+json types too; those requests go to it).
const FAST_CONTENT_TYPE = /^(?:application\/json|text\/plain)(?:; ?charset=utf-8)?$/i;
// body-parser's strict mode: a JSON text must be an object or an array. JSON's whitespace is these four.
const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*(.)/s;
const BYTE_ORDER_MARK = 0xfeff;
const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 * 1024 };
const noop = () => undefined;

/** BODY_LIMIT in bytes, as body-parser reads it (`512kb`, `1mb`: binary units). */
export function bodyLimitBytes(limit: string): number {
  const match = /^(\d+)(b|kb|mb)$/i.exec(limit);
  if (!match) throw new Error(`body limit ${limit} is not a size such as 512kb or 1mb`);
  return Number(match[1]) * UNITS[match[2]!.toLowerCase()]!;
}

/** What the fast path needs: the resolver route's parts and the app's own (headers, metrics, logger, gate). */
export interface ResolverFastPathDeps {
  readonly tokens: AppTokens;
  readonly admitApp: AdmitApp;
  readonly requireAuth: boolean;
  readonly resolver: ResolverOptions;
  readonly bodyLimit: string;
  readonly requestTimeoutMs: number;
  readonly clock: () => Date;
  readonly maintenance: MaintenanceMonitor;
  readonly headers: ResponseHeaders;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/**
 * POST /v1/resolver over plain node:http in front of `app`, as the express route answers it: the same headers
 * (X-Request-Id, security, CORS, ETag), bearer rules, body limit, deadline, problems, metrics and access log, without
 * express's middleware and router (most of a single id's cost there). A request it does not take — another route, a
 * Content-Encoding, a chunked body, another media type or charset, maintenance — goes to `app` unchanged.
 */
export function createResolverFastPath(deps: ResolverFastPathDeps, app: NodeHandler): NodeHandler {
  const limit = bodyLimitBytes(deps.bodyLimit);
  const takes = (req: IncomingMessage): boolean => {
    const { headers } = req;
    return (
      headers["content-length"] !== undefined &&
      headers["transfer-encoding"] === undefined &&
      headers["content-encoding"] === undefined &&
      FAST_CONTENT_TYPE.test(headers["content-type"] ?? "") &&
      !deps.maintenance.current().enabled
    );
  };
  return (req, res) => {
    if (req.method === "POST" && req.url === RESOLVER_PATH && takes(req)) serve(req, res);
    else app(req, res);
  };

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const id = requestIdOf(req);
    res.setHeader("X-Request-Id", id);
    const started = performance.now();
    const timed = deps.metrics.timeRequest(req.method);
    let log: Logger | undefined;
    const requestLog = () => (log ??= deps.logger.child({ reqId: id }));
    res.on("finish", () => {
      timed(RESOLVER_PATH, res.statusCode);
      logCompleted(deps.logger, requestLog, { id, method: req.method, path: RESOLVER_PATH }, res.statusCode, started);
    });
    deps.headers.security(req, res, noop);
    deps.headers.cors(req, res, noop);
    const fail = (error: unknown) => {
      const problem = problemFor(error, RESOLVER_PATH, id, deps.bodyLimit);
      if (problem.status >= 500) requestLog().error({ err: error, code: problem.body.code }, "request failed");
      if (res.headersSent) return void res.end();
      for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
      sendJson(res, problem.status, JSON.stringify(problem.body), PROBLEM_JSON);
    };
    const timer = setTimeout(() => {
      if (!res.headersSent) fail(timeoutError(req, deps.requestTimeoutMs));
    }, deps.requestTimeoutMs);
    timer.unref();
    res.on("close", () => clearTimeout(timer));
    const read = () =>
      readBody(req, limit, (over, body) =>
        over ? fail(new PayloadTooLargeError(deps.bodyLimit)) : answer(res, body, fail),
      );
    // An id lookup usually comes without a token: no promise on that path.
    const header = req.headers.authorization;
    if (header === undefined && !deps.requireAuth) return read();
    authenticate(header, deps.tokens, deps.requireAuth, deps.admitApp).then(read, fail);
  }

  function answer(res: ServerResponse, bytes: Buffer, fail: (error: unknown) => void): void {
    // Answered already (the deadline passed while the body was coming).
    if (res.headersSent) return;
    try {
      const body = ResolverRequest.parse(parseJson(bytes));
      const users = resolveUserIds(body.userIds, body.accountType, deps.resolver);
      deps.metrics.resolvedIds.inc(users.length);
      const reply = { updatedAt: deps.clock().toISOString(), accountType: body.accountType, users };
      sendJson(res, 200, JSON.stringify(reply));
    } catch (error) {
      fail(error);
    }
  }
}

/**
 * Reads the whole body, keeping at most `limit` bytes: over it (as declared or as sent), the rest is read and dropped
 * and `done` is told so once the request has ended (a 413 then, as body-parser answers: the client is not cut off mid-send).
 */
function readBody(req: IncomingMessage, limit: number, done: (over: boolean, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = Number(req.headers["content-length"]) > limit;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) over = true;
    if (!over) chunks.push(chunk);
  });
  req.on("end", () => {
    done(over, over ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
  // A client gone mid-body: there is no one to answer (the deadline timer ends with the response).
  req.on("error", noop);
}

/** The JSON body as express.json (strict, UTF-8) reads it: byte-order mark dropped, an empty body `{}`. */
function parseJson(bytes: Buffer): unknown {
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  if (text.length === 0) return {};
  const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
  if (first === "{" || first === "[") {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // As below.
    }
  }
  throw new InvalidRequestError("The body is not valid JSON", [], "MALFORMED_JSON");
}
