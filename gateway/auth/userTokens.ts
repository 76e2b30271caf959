import { randomUUID } from "node:crypto";
import { SignJWT, errors as joseErrors, jwtVerify } from "jose";
import { ProofRefusedError } from "../errors/apiError";
import { VerifiedTokens } from "./verifiedTokens";

/**
 * Audience of user tokens. It differs from the app tokens' audience, and user tokens carry no `cid` claim, so an
 * app token never passes as a user proof nor a user token as an app token (invariant 3).
 */
export const USER_TOKEN_AUDIENCE = "idwallet-user";

// Native login names phone users only (spec §5.2): `tel:` and E.164 digits.
const USER_ID = /^tel:\d{8,15}$/;

/** 401 INVALID_PROOF: the user token in `auth` does not verify. */
const invalidProof = (detail: string) => new ProofRefusedError("INVALID_PROOF", detail);

/** What a valid user token proves: the user id, and the app it is bound to (`azp`), if it is bound. */
export interface ProvedUser {
  readonly userId: string;
  readonly appId?: string;
}

/** Issues and verifies user tokens (spec §4.6): the JWT an app passes as `auth` to act for one user id. */
export interface UserTokens {
  /** A token for `userId`; with `appId`, bound to that app (`azp`, OpenID Connect Core §2): no other app may use it. */
  issue(userId: string, options?: { appId?: string }): Promise<{ token: string; expiresIn: number }>;
  /** What the token proves; 401 INVALID_PROOF or PROOF_EXPIRED (it is always an `auth` proof) otherwise. */
  verify(token: string): Promise<ProvedUser>;
}

/** User tokens: HS256 JWTs with issuer, audience, subject (the user id), expiry and id, timed by `clock`. */
export function createUserTokens(options: {
  secret: string;
  issuer: string;
  clock: () => Date;
  ttlSeconds: number;
}): UserTokens {
  if (typeof options.secret !== "string" || options.secret.length < 32) {
    throw new Error("the user token secret must have at least 32 characters");
  }
  const key = new TextEncoder().encode(options.secret);
  const nowSeconds = () => Math.floor(options.clock().getTime() / 1000);
  const verified = new VerifiedTokens<ProvedUser>(options.clock);
  return {
    async issue(userId, { appId } = {}) {
      if (!USER_ID.test(userId)) throw new Error("user tokens are issued for tel: user ids only");
      const now = nowSeconds();
      const token = await new SignJWT(appId === undefined ? {} : { azp: appId })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setIssuer(options.issuer)
        .setAudience(USER_TOKEN_AUDIENCE)
        .setSubject(userId)
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + options.ttlSeconds)
        .sign(key);
      return { token, expiresIn: options.ttlSeconds };
    },
    async verify(token) {
      const known = verified.get(token);
      if (known) return known;
      let subject: string | undefined;
      let exp: number | undefined;
      let azp: unknown;
      try {
        const { payload } = await jwtVerify(token, key, {
          // Only HS256: `alg: none` and any other algorithm are refused.
          algorithms: ["HS256"],
          issuer: options.issuer,
          audience: USER_TOKEN_AUDIENCE,
          currentDate: options.clock(),
          requiredClaims: ["sub", "jti", "exp", "iat"],
        });
        subject = payload.sub;
        exp = payload.exp;
        azp = payload.azp;
      } catch (error) {
        // The signature held and the token carries a client id: the app's own token, sent as `auth`.
        if (error instanceof joseErrors.JWTClaimValidationFailed && typeof error.payload.cid === "string") {
          throw invalidProof(
            "auth is an app token: send the user token (verifyOTP's access_token) as `auth`, and the app token as " +
              "the bearer",
          );
        }
        // PROOF_EXPIRED, not the app token's TOKEN_EXPIRED: the user signs in again, a new app token would not help.
        if (error instanceof joseErrors.JWTExpired) {
          throw new ProofRefusedError(
            "PROOF_EXPIRED",
            "The user token in auth has expired: sign the user in again (signInWithOTP, verifyOTP)",
          );
        }
        throw invalidProof("The user token in auth is not valid");
      }
      if (subject === undefined || !USER_ID.test(subject)) throw invalidProof("The user token names no valid user id");
      if (azp !== undefined && (typeof azp !== "string" || azp === "")) {
        throw invalidProof("The user token names no valid app");
      }
      const proved: ProvedUser = azp === undefined ? { userId: subject } : { userId: subject, appId: azp };
      verified.remember(token, proved, exp!);
      return proved;
    },
  };
}
