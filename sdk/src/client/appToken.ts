import { errorOf } from "../errors.js";
import { NOT_FOLLOWED } from "./exchange.js";

/** How the client authenticates as an app: its credentials, or a function returning a bearer token it holds. */
export type AppCredentials =
  { readonly clientId: string; readonly clientSecret: string } | { readonly getAccessToken: () => Promise<string> };

/** Seconds before expiry at which a cached app token is replaced. */
const REFRESH_MARGIN_SECONDS = 60;

/** The app's bearer token: fetched once, reused, refreshed before it expires; one fetch at a time. */
export class AppTokenSource {
  private cached: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: AppCredentials,
    private readonly fetcher: typeof fetch,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token valid for at least the refresh margin. */
  async get(): Promise<string> {
    if ("getAccessToken" in this.credentials) return this.credentials.getAccessToken();
    if (this.cached && this.now() < this.cached.renewAt) return this.cached.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets `token` (the service called it expired), so the next `get` fetches another. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  // RFC 6749 §4.4: client credentials, form-encoded.
  private async fetchToken(): Promise<string> {
    const { clientId, clientSecret } = this.credentials as { clientId: string; clientSecret: string };
    const response = await this.fetcher(`${this.baseUrl}/v1/auth`, {
      method: "POST",
      // A 307/308 followed would carry the client secret in the body to wherever Location points.
      redirect: NOT_FOLLOWED,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
    });
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok || !isTokenAnswer(body)) throw errorOf(response, body);
    const { access_token: token, expires_in: expiresIn } = body;
    const lifetimeMs = Math.max(0, expiresIn - REFRESH_MARGIN_SECONDS) * 1000;
    this.cached = { token, renewAt: this.now() + lifetimeMs };
    return token;
  }
}

/** Whether a token endpoint's answer is the RFC 6749 §5.1 one: a token and its lifetime in seconds. */
function isTokenAnswer(body: unknown): body is { access_token: string; expires_in: number } {
  const answer = body as { access_token?: unknown; expires_in?: unknown } | undefined;
  return typeof answer?.access_token === "string" && typeof answer.expires_in === "number";
}
