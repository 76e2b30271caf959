import { z } from "zod";
import type { ProviderRegistration } from "../auth/userProof";
import { BUILT_IN_PROVIDERS } from "../identity/userId";

/** A provider name an app may register: the user-id provider syntax, and not a built-in provider. */
export const ProviderName = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/, "lowercase letters, digits and inner hyphens, 1 to 32")
  .refine((p) => !(BUILT_IN_PROVIDERS as readonly string[]).includes(p), "a built-in provider cannot be registered");

/** How a registered provider's proofs are verified (stored as JSON, an HS256 secret sealed; parsed back with this schema). */
export const ProviderVerification = z.object({
  key: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("hs256"), secret: z.string().min(32, "an HS256 secret of at least 32 characters") }),
    z.object({ kind: z.enum(["rs256", "es256"]), publicKeyPem: z.string().includes("BEGIN PUBLIC KEY") }),
    z.object({ kind: z.literal("jwks"), url: z.url({ protocol: /^https?$/ }) }),
  ]),
  issuer: z.string().min(1).optional(),
  audience: z.string().min(1).optional(),
});
/** One of ProviderVerification. */
export type ProviderVerification = z.infer<typeof ProviderVerification>;

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
   * Registers `provider` for `appId`, or re-enables (with this verification) the app's own removed registration;
   * throws ProviderTakenError if it is enabled, or was ever registered by another app.
   */
  register(appId: string, provider: string, verification: ProviderVerification): Promise<ProviderRegistration>;
  /** The registration of `provider`, disabled or not. */
  find(provider: string): Promise<ProviderRegistration | undefined>;
  /** Every registration, by provider name; never the HS256 secrets. */
  list(): Promise<{ provider: string; appId: string; kind: string; createdAt: string; disabledAt?: string }[]>;
  /** Every provider name ever registered, removed ones included (they keep their wallets). */
  names(): Promise<string[]>;
  /** Disables the registration, keeping the name the app's; false if there was no enabled one. */
  remove(provider: string): Promise<boolean>;
  /**
   * Seals every HS256 secret under the current SECRETS_KEY: plain-text ones (stored by versions before sealing) and
   * ones of SECRETS_KEY_PREVIOUS; checks that every other opens. Throws SecretsKeyError, naming the providers, when
   * there is no key or a secret does not open. Run at start-up, before the service answers.
   */
  resealSecrets(): Promise<ResealedSecrets>;
}
