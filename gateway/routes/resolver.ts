import type { AdmitAnonymous } from "../http/anonymousLimit";
import { type Route, defineRoute } from "../http/route";
import { type ResolverOptions, resolveUserIds } from "../identity/addressResolver";
import { registerResolverPath } from "./resolver.openapi";
import { ResolverRequest } from "./resolver.schema";

/** The path of the resolver. */
const RESOLVER_PATH = "/v1/resolver";

/**
 * POST /v1/resolver: user ids → wallet addresses; also on the node:http fast path (most of a single id's cost on
 * express was its router and middleware). The spec's sample call sends the JSON body as text/plain: read as JSON too.
 */
export function resolverRoute(deps: {
  requireAuth: boolean;
  admitAnonymous: AdmitAnonymous;
  resolver: ResolverOptions;
  clock: () => Date;
  onResolved?: (count: number) => void;
}): Route {
  return defineRoute({
    method: "POST",
    path: RESOLVER_PATH,
    auth: deps.requireAuth ? "required" : "optional",
    admit: deps.admitAnonymous,
    body: {
      schema: ResolverRequest,
      mediaTypes: ["application/json", "application/*+json", "text/plain"],
      namedAs: ["application/json", "text/plain (JSON text)"],
    },
    problems: [
      "INVALID_REQUEST",
      "MALFORMED_JSON",
      "INVALID_USER_ID",
      "TOO_MANY_USER_IDS",
      "MALFORMED_TOKEN",
      "INVALID_TOKEN",
      "TOKEN_EXPIRED",
      "TOKEN_REVOKED",
      "APP_DISABLED",
      "MISSING_TOKEN",
      "PAYLOAD_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
      "RATE_LIMITED",
      "MAINTENANCE",
    ],
    openapi: registerResolverPath,
    fast: true,
    handle: ({ body }) => {
      const users = resolveUserIds(body.userIds, body.accountType, deps.resolver);
      deps.onResolved?.(users.length);
      return { status: 200, body: { updatedAt: deps.clock().toISOString(), accountType: body.accountType, users } };
    },
  });
}
