import type { App } from "./app";
import { randomUUID } from "node:crypto";
import { SignJWT, errors as joseErrors, jwtVerify } from "jose";
import { UnauthorizedError } from "../errors/apiError";
import { USER_TOKEN_AUDIENCE } from "./userTokens";
import { VerifiedTokens } from "./verifiedTokens";

/** Lifetime of an app's bearer token (spec §5.1: 60 minutes). */
export const APP_TOKEN_TTL_SECONDS = 3600;

/** Who a valid app token speaks for. */
export interface AppPrincipal {
  readonly appId: string;
  readonly clientId: string;
  readonly tokenId: string;
  /** The app's secret generation when the token was issued; a rotation since revokes the token. */
  readonly secretGeneration: number;
  /** The app as read when this request admitted the token (bearer.ts): its services need not read it again. */
  readonly app?: App;
  /**
   * The token as this request presented it (bearer.ts): a cluster's HTTP worker hands it to the primary with an
   * EIP-1271 request, and the primary verifies it itself for the app id it logs (custody/clusterCustody.ts).
   */
  readonly token?: string;
}

/** Issues and verifies app bearer tokens: HS256 JWTs with issuer, audience, expiry, id and secret generation. */
export interface AppTokens {
  issue(app: { id: string; clientId: string; secretGeneration: number }): Promise<{ token: string; expiresIn: number }>;
  verify(token: string): Promise<AppPrincipal>;
}

/** App tokens signed with `secret`, timed by `clock`. */
export function createAppTokens(options: {
  secret: string;
  issuer: string;
  audience: string;
  clock: () => Date;
}): AppTokens {
  if (typeof options.secret !== "string" || options.secret.length < 32) {
    throw new Error("the app token secret must have at least 32 characters");
  }
  const key = new TextEncoder().encode(options.secret);
  const nowSeconds = () => Math.floor(options.clock().getTime() / 1000);
  const verified = new VerifiedTokens<AppPrincipal>(options.clock);
  return {
    async issue(app) {
      const now = nowSeconds();
      const token = await new SignJWT({ cid: app.clientId, gen: app.secretGeneration })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setSubject(app.id)
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + APP_TOKEN_TTL_SECONDS)
        .sign(key);
      return { token, expiresIn: APP_TOKEN_TTL_SECONDS };
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) return known;
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["HS256"],
          issuer: options.issuer,
          audience: options.audience,
          currentDate: options.clock(),
          requiredClaims: ["sub", "jti", "exp"],
        });
        if (typeof payload.cid !== "string") throw new UnauthorizedError("INVALID_TOKEN", "The token names no client");
        // Tokens issued before generations existed carry none: generation 0 (migration 013).
        const generation = payload.gen ?? 0;
        if (!Number.isSafeInteger(generation) || (generation as number) < 0) {
          throw new UnauthorizedError("INVALID_TOKEN", "The token's secret generation is not valid");
        }
        const principal = {
          appId: payload.sub!,
          clientId: payload.cid,
          tokenId: payload.jti!,
          secretGeneration: generation as number,
        };
        verified.remember(token, principal, payload.exp!);
        return principal;
      } catch (error) {
        if (error instanceof UnauthorizedError) throw error;
        // The signature held (claims are checked after it) and the audience is the user tokens': a phone login's token
        // sent in the wrong place, expired or not; the fix is to swap it, not to fetch a new app token.
        if (error instanceof joseErrors.JWTClaimValidationFailed && error.payload.aud === USER_TOKEN_AUDIENCE) {
          throw new UnauthorizedError(
            "INVALID_TOKEN",
            "This is a user token (verifyOTP's access_token): send the app token from POST /v1/auth as the bearer, " +
              "and the user token as `auth`",
          );
        }
        if (error instanceof joseErrors.JWTExpired) {
          throw new UnauthorizedError("TOKEN_EXPIRED", "The bearer token has expired; request a new one at /v1/auth");
        }
        throw new UnauthorizedError("INVALID_TOKEN", "The bearer token is not valid");
      }
    },
  };
}
