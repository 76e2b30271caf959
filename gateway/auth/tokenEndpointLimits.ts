import { TooManyRequestsError } from "../errors/apiError";
import { ipBucket } from "../limits/addressBuckets";
import type { Limiter, Limits } from "../limits/limits";

/** How many POST /v1/auth requests one client address may make, and tokens one client id may get, per minute. */
export interface TokenEndpointLimitSettings {
  readonly perClientPerMinute: number;
  readonly perIpPerMinute: number;
}

/** The limits of the token endpoint (POST /v1/auth). */
export interface TokenEndpointLimits {
  /** Counts one request from `clientIp`, before its secret is judged; throws 429 RATE_LIMITED over the limit. */
  admitRequest(clientIp: string | undefined): Promise<void>;
  /** Counts one token for `clientId`, whose secret was right; throws 429 RATE_LIMITED over the limit. */
  admitToken(clientId: string): Promise<void>;
}

/**
 * Counted through `limits` (the database: every process and instance shares each count, issue 20). Every request from
 * an address counts before its secret is judged, so guesses from one address are bounded whatever client ids they name
 * (addresses are ipBucket()s: IPv6 by /64, behind the proxies TRUST_PROXY names the forwarded client). A client id's
 * limit counts only the tokens it got, which only the holder of its secret can spend: counting wrong guesses there
 * would let anyone who knows a client id lock its app out of new tokens, and buys nothing against guessing a 256-bit
 * secret. It stops an app that asks for tokens in a loop.
 */
export function createTokenEndpointLimits(settings: TokenEndpointLimitSettings, limits: Limits): TokenEndpointLimits {
  const perIp = limits.limiter({ name: "auth.ip", points: settings.perIpPerMinute, windowSeconds: 60 });
  const perClient = limits.limiter({ name: "auth.client", points: settings.perClientPerMinute, windowSeconds: 60 });
  const consume = async (limiter: Limiter, key: string, what: string): Promise<void> => {
    const verdict = await limiter.hit(key);
    if (verdict.allowed) return;
    const retryAfter = verdict.retryAfterSeconds;
    throw new TooManyRequestsError("RATE_LIMITED", `Too many ${what}; retry in ${retryAfter} s`, retryAfter);
  };
  return {
    admitRequest: (clientIp) => consume(perIp, ipBucket(clientIp), "token requests from this address"),
    admitToken: (clientId) => consume(perClient, clientId, "tokens for this client id"),
  };
}
