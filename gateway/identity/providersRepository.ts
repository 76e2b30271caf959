import type {
  ProviderRegistration,
  ProviderSummary,
  ProviderVerification,
  RegisteredName,
} from "./providerRegistration";
/** What {@link ProvidersRepository.resealSecrets} did: plain-text secrets sealed, secrets of an older key sealed again. */
export interface ResealedSecrets {
  readonly sealed: number;
  readonly resealed: number;
}

/** Thrown when a provider name is registered already, or was ever registered by another app. */
export class ProviderTakenError extends Error {
  override readonly name = "ProviderTakenError";
}

/** Provider names apps own for their own identity services (spec §5.2). */
export interface ProvidersRepository {
  /**
   * Registers `provider` for `appId`, or re-enables (with this verification) the app's own removed registration,
   * or replaces its own outdated one (no issuer or audience, or a plain-http key set); throws ProviderTakenError if
   * it is enabled and up to date, or was ever registered by another app, and a ZodError for a
   * verification ProviderVerification refuses (an http key set without `allowInsecure`).
   */
  register(
    appId: string,
    provider: string,
    verification: ProviderVerification,
    options?: { allowInsecure?: boolean },
  ): Promise<ProviderRegistration>;
  /** The registration of `provider`, disabled or not. */
  find(provider: string): Promise<ProviderRegistration | undefined>;
  /** Every registration, by provider name; never the HS256 secrets. */
  list(): Promise<ProviderSummary[]>;
  /** Every provider name ever registered, removed ones included (they keep their wallets), by name. */
  registeredNames(): Promise<RegisteredName[]>;
  /** Disables the registration, keeping the name the app's; false if there was no enabled one. */
  remove(provider: string): Promise<boolean>;
  /**
   * Seals every HS256 secret under the current SECRETS_KEY: plain-text ones (stored by versions before sealing) and
   * ones of SECRETS_KEY_PREVIOUS; checks that every other opens. Throws SecretsKeyError, naming the providers, when
   * there is no key or a secret does not open. Run at start-up, before the service answers.
   */
  resealSecrets(): Promise<ResealedSecrets>;
}
