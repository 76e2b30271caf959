import { AppTokenSource, type AppCredentials } from "./appToken.js";
import { Exchange } from "./exchange.js";
import { safeListingMethods, transactionListingMethods } from "./listings.js";
import { DEFAULT_RESOLVE_BATCH, identityMethods } from "./identity.js";
import { safeMethods } from "./safes.js";
import { signingMethods } from "./signing.js";
import { transactionMethods } from "./transactions.js";
import { webhookEndpointMethods } from "./webhookEndpoints.js";

/** Where the service is and how the app authenticates; `clientId`/`clientSecret` are kept server-side. */
export type IdwalletClientOptions = {
  /** The service's base URL, e.g. `https://wallet.example.com`. */
  readonly baseUrl: string;
  /** A fetch to use instead of the global one. */
  readonly fetch?: typeof fetch;
  /** Ids per resolver request (the service's RESOLVER_MAX_IDS; 1,000 by default). */
  readonly resolveBatch?: number;
} & (AppCredentials | { readonly clientId?: undefined; readonly clientSecret?: undefined });

/** An app's client of an idwallet service: typed methods for every flow, and `api` for any path of its document. */
export function createIdwalletClient(options: IdwalletClientOptions) {
  const resolveBatch = options.resolveBatch ?? DEFAULT_RESOLVE_BATCH;
  if (!Number.isSafeInteger(resolveBatch) || resolveBatch < 1) {
    throw new RangeError(`resolveBatch must be a positive whole number, not ${resolveBatch}`);
  }
  const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const credentials = "getAccessToken" in options || options.clientId !== undefined ? options : undefined;
  const appToken = credentials ? new AppTokenSource(baseUrl, credentials as AppCredentials, fetcher) : undefined;
  const exchange = new Exchange(baseUrl, fetcher, appToken);
  return {
    /** The typed HTTP client (openapi-fetch) of every path, for what the methods do not cover. */
    api: exchange.api,
    ...identityMethods(exchange, resolveBatch),
    ...transactionMethods(exchange),
    ...transactionListingMethods(exchange),
    ...signingMethods(exchange),
    /** 1-of-n Safe accounts and their payouts. */
    safes: { ...safeMethods(exchange), ...safeListingMethods(exchange) },
    /** The app's webhook endpoints. */
    webhooks: webhookEndpointMethods(exchange),
  };
}

/** An idwallet client, as createIdwalletClient makes it. */
export type IdwalletClient = ReturnType<typeof createIdwalletClient>;
