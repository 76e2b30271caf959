import { SignJWT } from "jose";
import type { ProviderVerification } from "../../gateway/identity/providerRegistration";
import { TEST_NOW } from "./testApp";

/** The `iss` and `aud` test identity services put in their proofs, and their providers are registered with. */
export const TEST_PROVIDER_ISSUER = "https://id.acme.test";
export const TEST_PROVIDER_AUDIENCE = "idwallet-test";

/** An HS256 provider registration with the test issuer and audience. */
export const hs256Provider = (secret: string): ProviderVerification => ({
  key: { kind: "hs256", secret },
  issuer: TEST_PROVIDER_ISSUER,
  audience: TEST_PROVIDER_AUDIENCE,
});

/**
 * An `auth` proof as a test identity service signs it: HS256, `sub` the username, the test issuer and audience,
 * issued at `now` (TEST_NOW) and valid `expiresIn` seconds (an hour).
 */
export function hs256Proof(
  secret: string,
  username: string,
  options: { now?: Date; expiresIn?: number; issuer?: string; audience?: string } = {},
): Promise<string> {
  const now = Math.floor((options.now ?? TEST_NOW).getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(options.issuer ?? TEST_PROVIDER_ISSUER)
    .setAudience(options.audience ?? TEST_PROVIDER_AUDIENCE)
    .setSubject(username)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 3600))
    .sign(new TextEncoder().encode(secret));
}
