import { type JWTVerifyGetKey, createRemoteJWKSet, errors as joseErrors, importSPKI, jwtVerify } from "jose";
import { ApiError, UnauthorizedError } from "../errors/apiError";
import type { ChainType } from "../chains/registry";
import { BUILT_IN_PROVIDERS, type UserId, formatUserId } from "../identity/userId";

/** How an app-owned provider's proofs are verified: the key the app registered. */
export type ProofKey =
  | { readonly kind: "hs256"; readonly secret: string }
  | { readonly kind: "rs256" | "es256"; readonly publicKeyPem: string }
  | { readonly kind: "jwks"; readonly url: string };

/** A provider name an app registered for its own identity service. */
export interface ProviderRegistration {
  readonly provider: string;
  readonly appId: string;
  readonly key: ProofKey;
  /** When set, the proof's `iss` / `aud` must match. */
  readonly issuer?: string;
  readonly audience?: string;
  /** Removed with `providers remove`: the name stays the app's, but its ids cannot act. */
  readonly disabled?: boolean;
}

/** The app acting, as its bearer token and registration say. */
export interface ActingApp {
  readonly appId: string;
  readonly testMode: boolean;
}

/** Where the action takes effect: the type of its chain, or undefined when it is valid on every chain. */
export interface ActionScope {
  readonly chainType: ChainType | undefined;
}

/** What the check needs. */
export interface UserProofDeps {
  /** Verifies a phone-login JWT (verifyOTP) and returns the user id it names. */
  verifyUserToken(token: string): Promise<{ userId: string }>;
  findProvider(provider: string): Promise<ProviderRegistration | undefined>;
  clock: () => Date;
}

const forbidden = (code: string, detail: string) => new ApiError(403, code, "Forbidden", detail);
const NATIVE_LATER: ReadonlySet<string> = new Set(BUILT_IN_PROVIDERS.filter((p) => p !== "tel"));
const ALGORITHMS = { hs256: ["HS256"], rs256: ["RS256"], es256: ["ES256"], jwks: ["RS256", "ES256", "EdDSA"] } as const;

/**
 * Invariant 3: nobody acts for a user id without proof bound to that user id. `tel:` ids need the phone-login
 * JWT of that number; an app-owned provider needs a JWT from the owning app's identity service whose
 * subject is the username (blank only for that app in test mode, and only for an action on a local or testnet
 * chain); other built-in providers have no native login yet. Throws a 4xx ApiError, returns nothing when the
 * proof holds.
 */
export async function checkUserProof(
  userId: UserId,
  auth: string,
  app: ActingApp,
  scope: ActionScope,
  deps: UserProofDeps,
): Promise<void> {
  const proof = auth.trim();
  if (userId.provider === "tel") {
    if (proof === "")
      throw new UnauthorizedError("PROOF_REQUIRED", "auth must be the phone-login token of this number");
    const { userId: proven } = await deps.verifyUserToken(proof);
    if (proven !== formatUserId(userId)) throw forbidden("PROOF_MISMATCH", "auth proves another user id");
    return;
  }
  if (NATIVE_LATER.has(userId.provider)) {
    throw new ApiError(
      400,
      "NATIVE_LOGIN_UNAVAILABLE",
      "Login not available",
      `Native login for ${userId.provider} ids is not available yet; only tel: ids and app-owned providers can act`,
    );
  }
  const registration = await deps.findProvider(userId.provider);
  if (!registration)
    throw new ApiError(
      400,
      "UNKNOWN_PROVIDER",
      "Unknown provider",
      `No app has registered the provider ${userId.provider}`,
    );
  if (registration.appId !== app.appId)
    throw forbidden("PROVIDER_NOT_OWNED", `The provider ${userId.provider} belongs to another app`);
  // Removal keeps the name (so no other app can take its wallets over) but stops every action for its ids.
  if (registration.disabled)
    throw forbidden("PROVIDER_DISABLED", `The provider ${userId.provider} was removed; its ids cannot act`);
  if (proof === "") {
    if (!app.testMode) throw new UnauthorizedError("PROOF_REQUIRED", "auth may be blank only for an app in test mode");
    // Test mode spends nothing real: never on a production chain, nor for a signature valid on every chain.
    if (scope.chainType !== "local" && scope.chainType !== "testnet")
      throw forbidden(
        "TEST_MODE_NOT_ALLOWED",
        scope.chainType === undefined
          ? "A blank auth (test mode) needs a local or testnet chain named in the request"
          : "A blank auth (test mode) is refused on production chains",
      );
    return;
  }
  const subject = await verifyProviderJwt(proof, registration, deps.clock);
  if (subject !== userId.username) throw forbidden("PROOF_MISMATCH", "auth proves another user id");
}

async function verifyProviderJwt(
  token: string,
  registration: ProviderRegistration,
  clock: () => Date,
): Promise<string> {
  try {
    const { payload } = await jwtVerify(token, await keyFor(registration.key), {
      algorithms: [...ALGORITHMS[registration.key.kind]],
      currentDate: clock(),
      requiredClaims: ["sub", "exp"],
      ...(registration.issuer ? { issuer: registration.issuer } : {}),
      ...(registration.audience ? { audience: registration.audience } : {}),
    });
    return payload.sub!;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw new UnauthorizedError("PROOF_EXPIRED", "The auth token has expired");
    throw new UnauthorizedError("INVALID_PROOF", "The auth token is not valid for this provider");
  }
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
