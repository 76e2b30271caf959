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
  /**
   * The `iss` and `aud` every proof must carry. Required at registration; only rows registered before they were
   * lack them, and their proofs are refused (PROVIDER_REGISTRATION_OUTDATED) until the provider is added again.
   */
  readonly issuer?: string;
  readonly audience?: string;
  /** Removed with `providers remove`: the name stays the app's, but its ids cannot act. */
  readonly disabled?: boolean;
}
