import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { ResolverRequest, ResolverResponse } from "./resolver.schema";

/** The resolver's example: one GitHub and one phone id. */
const RESOLVER_REQUEST = { userIds: "github:alice,tel:15551234567", accountType: "kernel" };
const RESOLVER_RESPONSE = {
  updatedAt: "2026-11-22T12:00:00.000Z",
  accountType: "kernel",
  users: [
    {
      userId: "github:alice",
      canonicalUserId: "github:alice",
      accountAddress: "0x4dee6CfcF2BDD96c7409c5DcaA251c1E3c2A6369",
      ensName: "alice.github.idwallet.eth",
    },
    {
      userId: "tel:15551234567",
      canonicalUserId: "tel:15551234567",
      accountAddress: "0x11394b6151b93B46E39F22E5052e7023B8F5B718",
      ensName: "15551234567.tel.idwallet.eth",
    },
  ],
};

/** POST /v1/resolver (routes/resolver.ts, on express and on the fast path) in the OpenAPI document. */
export function registerResolverPath(registry: OpenAPIRegistry, bearer: string): void {
  const tag: ApiTag = "Wallets";
  registry.registerPath({
    method: "post",
    path: "/v1/resolver",
    operationId: "resolveUserIds",
    tags: [tag],
    summary: "Resolve user ids to wallet addresses",
    description:
      "Pure computation: no sign-up, no chain access. The bearer token is optional unless the operator requires it; " +
      "a token that is sent must be valid. The body may be sent as application/json or as text/plain JSON text.",
    security: [{}, { [bearer]: [] }],
    request: {
      body: {
        required: true,
        content: {
          "application/json": { schema: ResolverRequest, example: RESOLVER_REQUEST },
          "text/plain": { schema: ResolverRequest, example: RESOLVER_REQUEST },
        },
      },
    },
    responses: {
      200: {
        description: "One entry per requested id, in request order",
        content: { "application/json": { schema: ResolverResponse, example: RESOLVER_RESPONSE } },
      },
      400: problem`${"INVALID_REQUEST"}, ${"MALFORMED_JSON"}, ${"INVALID_USER_ID"} (lists each bad id) or
        ${"TOO_MANY_USER_IDS"}`,
      401: problem`${"MALFORMED_TOKEN"}, ${"INVALID_TOKEN"}, ${"TOKEN_EXPIRED"}, ${"TOKEN_REVOKED"},
        ${"APP_DISABLED"}, or ${"MISSING_TOKEN"} when required`,
      413: problem`${"PAYLOAD_TOO_LARGE"}`,
      415: problem`${"UNSUPPORTED_MEDIA_TYPE"}`,
      429: problem`${"RATE_LIMITED"}: RESOLVER_ANONYMOUS_PER_MINUTE requests without a token (with Retry-After)`,
      503: problem`${"MAINTENANCE"}`,
    },
  });
}
