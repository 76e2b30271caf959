import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { registerCcipPaths } from "./ccip/ccip.openapi";
import { registerAuthPaths } from "./auth.openapi";
import { registerDustPaths } from "./dust.openapi";
import { registerOperationsPaths } from "./health.openapi";
import { registerKernelSignPaths } from "./kernelSign.openapi";
import { registerNetworksPaths } from "./networks.openapi";
import { registerOtpPaths } from "./otp.openapi";
import { registerResolverPath } from "./resolver.openapi";
import { registerSafePaths } from "./safes.openapi";
import { registerTransactionPaths } from "./transactions.openapi";
import { registerWebhookEvents } from "./webhookEvents.openapi";
import { registerWebhookPaths } from "./webhooks.openapi";
import { API_TAGS } from "../openapi/tags";

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
  registerWebhookEvents(registry);
  registerDustPaths(registry);
  registerOperationsPaths(registry);
  registerCcipPaths(registry);
  return registry;
}

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. Its server is `serverUrl`
 * (PUBLIC_URL) when set, else `/`: relative to where the document was fetched from.
 */
export function buildOpenApiDocument(serverUrl?: string): object {
  return new OpenApiGeneratorV31(buildOpenApiRegistry().definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "idwallet API",
      version: "1.0.0",
      description: "Every user id has an ERC-4337 wallet with the same address on every EVM chain.",
      // package.json and README: GPL-3.0, in SPDX today GPL-3.0-only.
      license: { name: "GPL-3.0", identifier: "GPL-3.0-only" },
    },
    servers: [{ url: serverUrl ? serverUrl.replace(/\/+$/, "") : "/" }],
    tags: API_TAGS.map((tag) => ({ ...tag })),
  });
}
