import type { IncomingMessage } from "node:http";
import type { AppPrincipal } from "../auth/appTokens";
import { ipBucket } from "../limits/addressBuckets";
import type { TrustProxy } from "../config/trustProxy";
import { TooManyRequestsError } from "../errors/apiError";
import type { Limits } from "../limits/limits";
import { clientAddress } from "./clientIp";

/** Lets a request on when an app's token came with it, else counts it against its client's limit (429 past it). */
export type AdmitAnonymous = (req: IncomingMessage, principal: AppPrincipal | undefined) => Promise<void>;

/**
 * The limit of requests without a token on a route anyone may call: `perMinute` per client address (an IPv6 /64) in
 * `limits`. An app's requests are its own to pace (its token names who sends them); an anonymous client's are not, and
 * without this one client could keep a process's CPU busy for every other request it serves.
 */
export function anonymousAdmission(
  name: string,
  perMinute: number,
  limits: Limits,
  trustProxy: TrustProxy,
): AdmitAnonymous {
  const limiter = limits.limiter({ name, points: perMinute, windowSeconds: 60 });
  return async (req, principal) => {
    if (principal !== undefined) return;
    const verdict = await limiter.hit(ipBucket(clientAddress(req, trustProxy)));
    if (!verdict.allowed) {
      throw new TooManyRequestsError(
        "RATE_LIMITED",
        `At most ${perMinute} requests a minute without a bearer token; send one, or retry in ${verdict.retryAfterSeconds} s`,
        verdict.retryAfterSeconds,
      );
    }
  };
}
