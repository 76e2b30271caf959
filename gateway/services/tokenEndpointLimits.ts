import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { TooManyRequestsError } from "../errors/apiError";
import { ipBucket } from "../http/clientIp";

/** How many POST /v1/auth requests one client id, and one client address, may make per minute. */
export interface TokenEndpointLimitSettings {
  readonly perClientPerMinute: number;
  readonly perIpPerMinute: number;
}

/** The limits of the token endpoint (POST /v1/auth). */
export interface TokenEndpointLimits {
  /** Counts one request for `clientId` from `clientIp`; throws 429 RATE_LIMITED once either is over its limit. */
  admit(clientId: string, clientIp: string | undefined): Promise<void>;
}

/**
 * Per process, like the other per-address limits: an address is not a stored fact. Every request counts, before its
 * secret is judged, so wrong guesses use up the budget as right ones do: guessing at one client id is bounded by its
 * limit from any number of addresses, and one address by its own across any number of client ids. Addresses are
 * ipBucket()s (IPv6: the /64), behind the proxies TRUST_PROXY names the forwarded client.
 */
export function createTokenEndpointLimits(settings: TokenEndpointLimitSettings): TokenEndpointLimits {
  const perIp = new RateLimiterMemory({ points: settings.perIpPerMinute, duration: 60 });
  const perClient = new RateLimiterMemory({ points: settings.perClientPerMinute, duration: 60 });
  const consume = async (limiter: RateLimiterMemory, key: string, what: string): Promise<void> => {
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new TooManyRequestsError(
        "RATE_LIMITED",
        `Too many token requests ${what}; retry in ${retryAfter} s`,
        retryAfter,
      );
    }
  };
  return {
    async admit(clientId, clientIp) {
      // The address first: a client over its own limit does not use up the budget of the client id it names.
      await consume(perIp, ipBucket(clientIp), "from this address");
      await consume(perClient, clientId, "for this client id");
    },
  };
}
