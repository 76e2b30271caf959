import type { IncomingMessage, ServerResponse } from "node:http";
import { PayloadTooLargeError } from "../errors/apiError";
import { ResolverRequest } from "./resolver.schema";
import type { MaintenanceMonitor } from "../config/maintenanceMonitor";
import { type ResolverOptions, resolveUserIds } from "../identity/addressResolver";
import { bodyLimitBytes, parseJson, plainBody, readBody } from "../http/fastBody";
import { type FastExchange, type FastPathDeps, authenticateFast, startExchange } from "../http/fastExchange";
import type { NodeHandler } from "../http/nodeHandler";
import type { AdmitAnonymous } from "../http/anonymousLimit";
import { sendJson } from "../http/jsonResponse";

export { bodyLimitBytes } from "../http/fastBody";

/** The path served here; the express route of routes/resolver.ts serves it too, for the requests not taken here. */
export const RESOLVER_PATH = "/v1/resolver";

// The route's JSON media types as clients send them, in UTF-8 (express.json reads other charsets and the
// application/*+json types too; those requests go to it).
const FAST_CONTENT_TYPE = /^(?:application\/json|text\/plain)(?:; ?charset=utf-8)?$/i;

/** What the fast path needs: the resolver route's parts and the app's own (headers, metrics, logger, gate). */
export interface ResolverFastPathDeps extends FastPathDeps {
  readonly requireAuth: boolean;
  readonly admitAnonymous: AdmitAnonymous;
  readonly resolver: ResolverOptions;
  readonly clock: () => Date;
  readonly maintenance: MaintenanceMonitor;
}

/**
 * POST /v1/resolver over plain node:http in front of `app`, as the express route answers it: the same headers
 * (X-Request-Id, security, CORS, ETag), bearer rules, body limit, deadline, problems, metrics and access log, without
 * express's middleware and router (most of a single id's cost there). A request it does not take — another route, a
 * Content-Encoding, a chunked body, another media type or charset, maintenance — goes to `app` unchanged.
 */
export function createResolverFastPath(deps: ResolverFastPathDeps, app: NodeHandler): NodeHandler {
  const limit = bodyLimitBytes(deps.bodyLimit);
  const takes = (req: IncomingMessage): boolean =>
    plainBody(req) && FAST_CONTENT_TYPE.test(req.headers["content-type"] ?? "") && !deps.maintenance.current().enabled;
  return (req, res) => {
    if (req.method === "POST" && req.url === RESOLVER_PATH && takes(req)) serve(req, res);
    else app(req, res);
  };

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const exchange = startExchange(deps, req, res, RESOLVER_PATH, RESOLVER_PATH);
    const read = () =>
      readBody(req, limit, (over, body) =>
        over ? exchange.fail(new PayloadTooLargeError(deps.bodyLimit)) : answer(exchange, body),
      );
    authenticateFast(deps, exchange, deps.requireAuth, (principal) =>
      deps.admitAnonymous(req, principal).then(read, exchange.fail),
    );
  }

  function answer({ res, fail }: FastExchange, bytes: Buffer): void {
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
