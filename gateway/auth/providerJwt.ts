import { type JWTVerifyGetKey, createRemoteJWKSet, errors as joseErrors, importSPKI, jwtVerify } from "jose";
import { ProofRefusedError } from "../errors/apiError";
import type { ProofKey } from "../identity/providerRegistration";

/** How far in the future an identity service's `iat` may be: its clock may run a little ahead of ours. */
export const IAT_CLOCK_SKEW_SECONDS = 60;

const ALGORITHMS = { hs256: ["HS256"], rs256: ["RS256"], es256: ["ES256"], jwks: ["RS256", "ES256", "EdDSA"] } as const;

/** What a provider JWT is checked against: the registered key, issuer and audience, and the oldest `iat` taken. */
export interface ProviderJwtCheck {
  readonly key: ProofKey;
  readonly issuer: string;
  readonly audience: string;
  readonly maxAgeSeconds: number;
  readonly clock: () => Date;
}

/**
 * Verifies an app's identity-service JWT (RFC 7519) and returns its subject. `iss` and `aud` must be the registered
 * ones: with a key shared by many tenants (Firebase signs every project's tokens with one key set) they are what
 * tells this provider's tokens from another tenant's. `iat` is required and bounds the token's use to
 * `maxAgeSeconds` whatever its `exp`. Throws 401 PROOF_EXPIRED or INVALID_PROOF.
 */
export async function verifyProviderJwt(token: string, check: ProviderJwtCheck): Promise<string> {
  const now = check.clock();
  let payload;
  try {
    ({ payload } = await jwtVerify(token, await keyFor(check.key), {
      algorithms: [...ALGORITHMS[check.key.kind]],
      currentDate: now,
      requiredClaims: ["sub", "exp", "iat", "iss", "aud"],
      issuer: check.issuer,
      audience: check.audience,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw new ProofRefusedError("PROOF_EXPIRED", "The auth token has expired");
    // The signature held (claims are checked after it): say which claim, so the identity service can be fixed.
    if (error instanceof joseErrors.JWTClaimValidationFailed)
      throw new ProofRefusedError("INVALID_PROOF", claimProblem(error.claim, error.reason));
    throw new ProofRefusedError("INVALID_PROOF", "The auth token is not valid for this provider");
  }
  const age = Math.floor(now.getTime() / 1000) - payload.iat!;
  if (age < -IAT_CLOCK_SKEW_SECONDS)
    throw new ProofRefusedError("INVALID_PROOF", "The auth token's iat claim is in the future");
  if (age > check.maxAgeSeconds)
    throw new ProofRefusedError(
      "PROOF_EXPIRED",
      `The auth token was issued more than ${check.maxAgeSeconds} seconds ago; get a fresh one`,
    );
  return payload.sub!;
}

/** The detail of a claim that failed its check, after the signature held. */
function claimProblem(claim: string, reason: string): string {
  if (reason === "missing") return `The auth token has no ${claim} claim`;
  if (reason === "invalid") return `The auth token's ${claim} claim is malformed`;
  if (claim === "nbf") return "The auth token is not valid yet (nbf)";
  return `The auth token's ${claim} claim is not this provider's registered ${claim === "iss" ? "issuer" : claim === "aud" ? "audience" : claim}`;
}

const jwksByUrl = new Map<string, JWTVerifyGetKey>();
type PublicKey = Awaited<ReturnType<typeof importSPKI>>;
const pemKeys = new Map<string, Promise<PublicKey>>();

/** The verification key of a registration; JWKS sets and parsed PEM keys are kept (jose caches JWKS fetches). */
function keyFor(key: ProofKey): Promise<Uint8Array | PublicKey> | JWTVerifyGetKey {
  switch (key.kind) {
    case "hs256":
      return Promise.resolve(new TextEncoder().encode(key.secret));
    case "rs256":
    case "es256": {
      const cacheKey = `${key.kind}:${key.publicKeyPem}`;
      let parsed = pemKeys.get(cacheKey);
      if (!parsed) {
        parsed = importSPKI(key.publicKeyPem, key.kind === "rs256" ? "RS256" : "ES256");
        pemKeys.set(cacheKey, parsed);
      }
      return parsed;
    }
    case "jwks": {
      let set = jwksByUrl.get(key.url);
      if (!set) {
        set = createRemoteJWKSet(new URL(key.url), { timeoutDuration: 5000, cooldownDuration: 30_000 });
        jwksByUrl.set(key.url, set);
      }
      return set;
    }
  }
}
