import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { EXAMPLE } from "../openapi/examples";
import { problemResponse as problem } from "../openapi/problem.schema";
import type { ApiTag } from "../openapi/tags";
import { TokenRequest, TokenResponse } from "./auth.schema";

const TAG: ApiTag = "Auth";

/** POST /v1/auth (the auth router) in the OpenAPI document. */
export function registerAuthPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: "post",
    path: "/v1/auth",
    operationId: "getAppToken",
    tags: [TAG],
    summary: "Get an app bearer token (OAuth 2.0 client credentials)",
    description:
      "Form fields client_id and client_secret (or HTTP Basic), grant_type=client_credentials optional. " +
      "The token is valid for 60 minutes; errors carry RFC 6749 `error` and `error_description`.",
    security: [{}],
    request: {
      body: {
        content: {
          "application/x-www-form-urlencoded": {
            schema: TokenRequest,
            example: {
              grant_type: "client_credentials",
              client_id: "cid_5pcj1WN3nmfEzXppShh8FY",
              client_secret: "NE43qvCTM9n8jzZbac-kVctXZkDMN4KPZN0rx4voyTw",
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: "A bearer token",
        content: {
          "application/json": {
            schema: TokenResponse,
            example: { access_token: EXAMPLE.appToken, token_type: "Bearer", expires_in: 3600 },
          },
        },
      },
      400: problem`${"invalid_request"}, ${"unsupported_grant_type"}`,
      401: problem`${"invalid_client"} (unknown client, wrong secret, disabled app)`,
      429: problem`${"RATE_LIMITED"}: too many requests for this client id or from this address (Retry-After)`,
      503: problem`${"MAINTENANCE"}`,
    },
  });
}
