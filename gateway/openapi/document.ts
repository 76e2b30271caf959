import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { registerCcipPaths } from "../ens/ccip.openapi";
import { registerAuthPaths } from "../routes/auth.openapi";
import { registerDustPaths } from "../routes/dust.openapi";
import { registerOperationsPaths } from "../routes/health.openapi";
import { registerKernelSignPaths } from "../routes/kernelSign.openapi";
import { registerNetworksPaths } from "../routes/networks.openapi";
import { registerOtpPaths } from "../routes/otp.openapi";
import { ResolverRequest, ResolverResponse } from "../routes/resolver.schema";
import { registerSafePaths } from "../routes/safes.openapi";
import { registerTransactionPaths } from "../routes/transactions.openapi";
import { registerWebhookPaths } from "../routes/webhooks.openapi";
import { problemResponse as problem } from "./problem.schema";
import { API_TAGS, type ApiTag } from "./tags";

/**
 * Every path of the API, each registered by the file beside its router (`routes/<router>.openapi.ts`; the CCIP
 * gateway's beside its schema in `ens/`), in the order of the routers in app.ts.
 */
export function buildOpenApiRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" }).name;
  registerAuthPaths(registry);
  registerOtpPaths(registry, bearer);
  registerResolverPath(registry, bearer);
  registerNetworksPaths(registry);
  registerKernelSignPaths(registry, bearer);
  registerTransactionPaths(registry, bearer);
  registerSafePaths(registry, bearer);
  registerWebhookPaths(registry, bearer);
  registerDustPaths(registry);
  registerOperationsPaths(registry);
  registerCcipPaths(registry);
  return registry;
}

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(serverUrl?: string): object {
  return new OpenApiGeneratorV31(buildOpenApiRegistry().definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "idwallet API",
      version: "1.0.0",
      description: "Every user id has an ERC-4337 wallet with the same address on every EVM chain.",
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
    tags: API_TAGS.map((tag) => ({ ...tag })),
  });
}

/** The resolver example of the README's walk-through: one GitHub and one phone id. */
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

/**
 * POST /v1/resolver. Registered here rather than in `routes/resolver.openapi.ts` beside its router only while the
 * resolver's route files are being changed on another branch; it moves there once that work has landed.
 */
function registerResolverPath(registry: OpenAPIRegistry, bearer: string): void {
  const tag: ApiTag = "Wallets";
  registry.registerPath({
    method: "post",
    path: "/v1/resolver",
    tags: [tag],
    summary: "Resolve user ids to wallet addresses",
    description:
      "Pure computation: no sign-up, no chain access. The bearer token is optional unless the operator requires it; " +
      "a token that is sent must be valid. The body may be sent as application/json or as text/plain JSON text.",
    security: [{}, { [bearer]: [] }],
    request: {
      body: {
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
      400: problem("INVALID_REQUEST, MALFORMED_JSON, INVALID_USER_ID (lists each bad id) or TOO_MANY_USER_IDS"),
      401: problem(
        "MALFORMED_TOKEN, INVALID_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, APP_DISABLED, or MISSING_TOKEN when required",
      ),
      413: problem("PAYLOAD_TOO_LARGE"),
      415: problem("UNSUPPORTED_MEDIA_TYPE"),
      503: problem("MAINTENANCE"),
    },
  });
}
