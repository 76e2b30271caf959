import type { AppPrincipal, AppTokens } from "./appTokens";
import { ApiError, UnauthorizedError } from "../errors/apiError";
import type { OAuthErrorName } from "../errors/errorCodes";
import type { App } from "./app";
import type { AppsRepository } from "./appsRepository";
import type { TokenEndpointLimits } from "./tokenEndpointLimits";

/** Client credentials as sent: form fields or HTTP Basic. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** An RFC 6749 §5.2 error as a problem: `error` and `error_description` beside the stable `code`. */
export class OAuthError extends ApiError {
  constructor(status: number, error: OAuthErrorName, description: string, headers: Record<string, string> = {}) {
    super(
      status,
      // toUpperCase is typed as any string's; an OAuth error's is one of the codes.
      error.toUpperCase() as Uppercase<OAuthErrorName>,
      status === 401 ? "Unauthorized" : "Invalid request",
      description,
      {
        error,
        error_description: description,
      },
      headers,
    );
  }
}

/** What the token endpoint works with. */
export interface TokenEndpointDeps {
  readonly apps: Pick<AppsRepository, "verifySecret">;
  readonly tokens: AppTokens;
  readonly limits: TokenEndpointLimits;
}

/**
 * OAuth 2.0 client credentials grant: counts the request against the client id's and the address's limits (429
 * RATE_LIMITED), checks the app's secret (HMAC-SHA256, same work for unknown clients) and issues a 60-minute bearer
 * token. A disabled app or a wrong secret is `invalid_client`.
 */
export async function issueAppToken(
  deps: TokenEndpointDeps,
  request: { credentials: ClientCredentials; usedBasic: boolean; clientIp: string | undefined },
): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }> {
  const { credentials, usedBasic } = request;
  await deps.limits.admitRequest(request.clientIp);
  const app = await deps.apps.verifySecret(credentials.clientId, credentials.clientSecret);
  if (!app) {
    // RFC 6749 §5.2: a client that authenticated with Basic gets the matching challenge.
    const challenge: Record<string, string> = usedBasic ? { "WWW-Authenticate": 'Basic realm="idwallet"' } : {};
    throw new OAuthError(401, "invalid_client", "Unknown client, wrong secret, or disabled app", challenge);
  }
  await deps.limits.admitToken(app.clientId);
  const { token, expiresIn } = await deps.tokens.issue(app);
  return { access_token: token, token_type: "Bearer", expires_in: expiresIn };
}

/**
 * Admits a verified app token only while its app is active (else APP_DISABLED) and its secret has not been rotated
 * since it was issued (else TOKEN_REVOKED): `apps rotate-secret` revokes every token of the old secret.
 */
export async function admitAppToken(
  findApp: (appId: string) => Promise<App | undefined>,
  principal: AppPrincipal,
): Promise<App> {
  const app = await findApp(principal.appId);
  if (app?.status !== "active") {
    throw new UnauthorizedError("APP_DISABLED", "The app this token was issued to is disabled");
  }
  if (app.secretGeneration !== principal.secretGeneration) {
    throw new UnauthorizedError(
      "TOKEN_REVOKED",
      "The app's client secret was rotated after this token was issued; request a new one at /v1/auth",
    );
  }
  return app;
}
