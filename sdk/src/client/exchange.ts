import createFetchClient, { type Client } from "openapi-fetch";
import { errorOf, isProblem } from "../errors.js";
import type { paths } from "../generated/openapi.js";
import type { AppTokenSource } from "./appToken.js";

/** The typed HTTP client of the service's OpenAPI document (openapi-fetch): every path, typed from the document. */
export type IdwalletApi = Client<paths>;

/** Fetch's redirect mode for every request to the service: the 3xx itself is the answer (an opaque one in browsers). */
export const NOT_FOLLOWED = "manual" satisfies RequestRedirect;

/** What openapi-fetch answers for one request. */
interface Answer {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The typed API and the app's token, with the one rule for turning answers into data or a thrown problem. */
export class Exchange {
  readonly api: IdwalletApi;

  constructor(
    baseUrl: string,
    fetcher: typeof fetch,
    private readonly appToken: AppTokenSource | undefined,
  ) {
    // A redirect is never followed (NOT_FOLLOWED): fetch would re-send a 307/308's body, the user's `auth` in it, to
    // any origin the Location names. The service answers none; a 3xx is thrown as UNEXPECTED_RESPONSE.
    this.api = createFetchClient<paths>({ baseUrl, fetch: (request) => fetcher(request), redirect: NOT_FOLLOWED });
    this.api.use({ onResponse: ({ response, options }) => refuseNonJson(response, options.parseAs) });
  }

  /** Runs a request as the app: with its bearer token, fetched again and the request re-sent once on TOKEN_EXPIRED. */
  async asApp<A extends Answer>(send: (authorization: string) => Promise<A>): Promise<NonNullable<A["data"]>> {
    if (!this.appToken) throw new TypeError("this call needs the app's credentials (clientId and clientSecret)");
    const token = await this.appToken.get();
    let answer = await send(`Bearer ${token}`);
    if (answer.response.status === 401 && isProblem(answer.error) && answer.error.code === "TOKEN_EXPIRED") {
      this.appToken.invalidate(token);
      answer = await send(`Bearer ${await this.appToken.get()}`);
    }
    return dataOf(answer);
  }

  /**
   * Runs a request of a route where the token is optional: as the app when the client has credentials (with the same
   * once-on-TOKEN_EXPIRED retry: an expired token is refused there too), else anonymously.
   */
  async asAppIfAny<A extends Answer>(
    send: (headers: { Authorization?: string }) => Promise<A>,
  ): Promise<NonNullable<A["data"]>> {
    if (!this.appToken) return dataOf(await send({}));
    return this.asApp((Authorization) => send({ Authorization }));
  }
}

/**
 * A success answer that should be JSON but is not (a captive portal's or a proxy's page answered with 200) is no answer
 * of the service: thrown as UNEXPECTED_RESPONSE rather than left to fail as a parse error.
 */
function refuseNonJson(response: Response, parseAs: string): undefined {
  if (parseAs !== "json" || !response.ok || response.status === 204) return undefined;
  if (response.headers.get("content-length") === "0") return undefined;
  if (/\bjson\b/i.test(response.headers.get("content-type") ?? "")) return undefined;
  throw errorOf(response, undefined);
}

/** The data of a successful answer; otherwise the service's problem, thrown as an IdwalletError. */
export function dataOf<A extends Answer>(answer: A): NonNullable<A["data"]> {
  if (!answer.response.ok || answer.error !== undefined) throw errorOf(answer.response, answer.error);
  return answer.data as NonNullable<A["data"]>;
}
