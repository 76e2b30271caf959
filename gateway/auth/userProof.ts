import { ApiError, ProofRefusedError } from "../errors/apiError";
import type { ErrorCode } from "../errors/errorCodes";
import type { ChainType } from "../chains/registry";
import { BUILT_IN_PROVIDERS, type UserId, formatUserId } from "../identity/userId";
import type { ProviderRegistration } from "../identity/providerRegistration";
import { jwksUrlRefusal } from "../identity/jwksUrl";
import { verifyProviderJwt } from "./providerJwt";

/** The app acting, as its bearer token and registration say. */
export interface ActingApp {
  readonly appId: string;
  readonly testMode: boolean;
}

/**
 * Where the action takes effect: the type of its chain, or undefined when it is valid on every chain (a wallet
 * signature, whatever chain its request names).
 */
export interface ActionScope {
  readonly chainType: ChainType | undefined;
}

/** What the check needs. */
export interface UserProofDeps {
  /** Verifies a phone-login JWT (verifyOTP) and returns the user id it names and the app it is bound to, if any. */
  verifyUserToken(token: string): Promise<{ userId: string; appId?: string }>;
  findProvider(provider: string): Promise<ProviderRegistration | undefined>;
  /** PROVIDER_PROOF_MAX_AGE_SECONDS: the oldest `iat` of a provider JWT that is still taken. */
  providerProofMaxAgeSeconds: number;
  /** USER_TOKENS_REQUIRE_APP: refuse phone-login tokens bound to no app. */
  userTokensRequireApp: boolean;
  clock: () => Date;
}

const forbidden = (code: ErrorCode, detail: string) => new ApiError(403, code, "Forbidden", detail);
const NATIVE_LATER: ReadonlySet<string> = new Set(BUILT_IN_PROVIDERS.filter((p) => p !== "tel"));

/**
 * Invariant 3: nobody acts for a user id without proof bound to that user id. `tel:` ids need the phone-login
 * JWT of that number, used by the app it is bound to if it is bound to one; an app-owned provider needs a fresh JWT
 * from the owning app's identity service, with the registered issuer and audience, whose subject is the username
 * (blank only for that app in test mode, and only for an action bound to a local or testnet chain: a transaction,
 * never a signature); other built-in
 * providers have no native login yet. Throws a 4xx ApiError, returns nothing when the proof holds.
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
      throw new ProofRefusedError("PROOF_REQUIRED", "auth must be the phone-login token of this number");
    const { userId: proven, appId: boundTo } = await deps.verifyUserToken(proof);
    if (proven !== formatUserId(userId)) throw forbidden("PROOF_MISMATCH", "auth proves another user id");
    // A token bound at verifyOTP (azp) is that app's alone: another app that obtained it cannot replay it.
    if (boundTo !== undefined && boundTo !== app.appId)
      throw forbidden("PROOF_WRONG_APP", "auth is a phone-login token issued to another app; sign the user in again");
    if (boundTo === undefined && deps.userTokensRequireApp)
      throw new ProofRefusedError(
        "PROOF_UNBOUND",
        "auth is a phone-login token bound to no app; this deployment takes only tokens from a verifyOTP the app authenticated",
      );
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
    if (!app.testMode) throw new ProofRefusedError("PROOF_REQUIRED", "auth may be blank only for an app in test mode");
    // Test mode spends nothing real: never on a production chain, nor for anything valid on every chain (a wallet
    // signature: EIP-1271 over a replay-safe hash without chain id, whatever chain the request names).
    if (scope.chainType !== "local" && scope.chainType !== "testnet")
      throw forbidden(
        "TEST_MODE_NOT_ALLOWED",
        scope.chainType === undefined
          ? "A blank auth (test mode) never yields a signature: the wallet's EIP-1271 signature holds on every chain " +
              "where the wallet exists, production ones included; send the user's proof"
          : "A blank auth (test mode) is refused on production chains",
      );
    return;
  }
  const { issuer, audience, key } = registration;
  // Rows registered before issuer, audience and https were required: refused rather than trusted on the key alone.
  if (!issuer || !audience || (key.kind === "jwks" && jwksUrlRefusal(key.url, { allowInsecure: true })))
    throw forbidden(
      "PROVIDER_REGISTRATION_OUTDATED",
      `The provider ${userId.provider} was registered without an issuer and audience (or with a plain-http key set); ` +
        "its proofs are refused until the operator adds it again with both",
    );
  const subject = await verifyProviderJwt(proof, {
    key,
    issuer,
    audience,
    maxAgeSeconds: deps.providerProofMaxAgeSeconds,
    clock: deps.clock,
  });
  if (subject !== userId.username) throw forbidden("PROOF_MISMATCH", "auth proves another user id");
}
