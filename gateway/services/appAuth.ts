import type { AppTokens } from "../auth/appTokens";
import { ApiError } from "../errors/apiError";
import type { AppsRepository } from "../storage/appsRepository";

/** Client credentials as sent: form fields or HTTP Basic. */
export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** An RFC 6749 §5.2 error as a problem: `error` and `error_description` beside the stable `code`. */
export class OAuthError extends ApiError {
  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(
      status,
      error.toUpperCase(),
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

/**
 * OAuth 2.0 client credentials grant: checks the app's secret (HMAC-SHA256, same work for unknown clients)
 * and issues a 60-minute bearer token. A disabled app or a wrong secret is `invalid_client`.
 */
export async function issueAppToken(
  apps: Pick<AppsRepository, "verifySecret">,
  tokens: AppTokens,
  credentials: ClientCredentials,
  usedBasic: boolean,
): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }> {
  const app = await apps.verifySecret(credentials.clientId, credentials.clientSecret);
  if (!app) {
    // RFC 6749 §5.2: a client that authenticated with Basic gets the matching challenge.
    const challenge: Record<string, string> = usedBasic ? { "WWW-Authenticate": 'Basic realm="idwallet"' } : {};
    throw new OAuthError(401, "invalid_client", "Unknown client, wrong secret, or disabled app", challenge);
  }
  const { token, expiresIn } = await tokens.issue({ id: app.id, clientId: app.clientId });
  return { access_token: token, token_type: "Bearer", expires_in: expiresIn };
}
