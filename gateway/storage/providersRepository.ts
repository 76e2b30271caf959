import { z } from "zod";
import { jwksUrlRefusal } from "../auth/jwksUrl";
import type { ProviderRegistration } from "../identity/providerRegistration";
import { BUILT_IN_PROVIDERS } from "../identity/userId";

/** A provider name an app may register: the user-id provider syntax, and not a built-in provider. */
export const ProviderName = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/, "lowercase letters, digits and inner hyphens, 1 to 32")
  .refine((p) => !(BUILT_IN_PROVIDERS as readonly string[]).includes(p), "a built-in provider cannot be registered");

const ProofKeySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("hs256"), secret: z.string().min(32, "an HS256 secret of at least 32 characters") }),
  z.object({ kind: z.enum(["rs256", "es256"]), publicKeyPem: z.string().includes("BEGIN PUBLIC KEY") }),
  z.object({ kind: z.literal("jwks"), url: z.url({ protocol: /^https?$/ }) }),
]);

/**
 * A stored verification as rows may hold it (JSON, an HS256 secret sealed): rows registered before issuer, audience
 * and https key sets were required lack them (userProof.ts refuses their proofs). Used only to read rows back.
 */
export const StoredProviderVerification = z.object({
  key: ProofKeySchema,
  issuer: z.string().min(1).optional(),
  audience: z.string().min(1).optional(),
});

/**
 * How a provider's proofs are verified, as registered now: the key, and the `iss` and `aud` every proof must carry
 * (whatever the key kind: a key may be shared by many tenants of one identity service), a key set over https, or
 * over http to a loopback host when the operator allows it (register's `allowInsecure`).
 */
export const ProviderVerification = StoredProviderVerification.extend({
  issuer: z.string({ error: "an issuer is required" }).min(1, "an issuer is required"),
  audience: z.string({ error: "an audience is required" }).min(1, "an audience is required"),
}).superRefine((v, ctx) => {
  const refusal = v.key.kind === "jwks" ? jwksUrlRefusal(v.key.url, { allowInsecure: true }) : undefined;
  if (refusal) ctx.addIssue({ code: "custom", path: ["key", "url"], message: refusal });
});
/** One of ProviderVerification. */
export type ProviderVerification = z.infer<typeof ProviderVerification>;

/** ProviderVerification for one registration: a plain-http key set only with `allowInsecure` (and a loopback host). */
export const registrationVerification = (allowInsecure: boolean) =>
  ProviderVerification.superRefine((v, ctx) => {
    const refusal = v.key.kind === "jwks" ? jwksUrlRefusal(v.key.url, { allowInsecure }) : undefined;
    if (refusal) ctx.addIssue({ code: "custom", path: ["key", "url"], message: refusal });
  });

/** What {@link ProvidersRepository.resealSecrets} did: plain-text secrets sealed, secrets of an older key sealed again. */
export interface ResealedSecrets {
  readonly sealed: number;
  readonly resealed: number;
}

/** Thrown when a provider name is registered already, or was ever registered by another app. */
export class ProviderTakenError extends Error {
  override readonly name = "ProviderTakenError";
}

/** One row of `providers list`: never a secret; issuer and audience are missing only from outdated rows. */
export interface ProviderSummary {
  readonly provider: string;
  readonly appId: string;
  readonly kind: string;
  readonly issuer?: string;
  readonly audience?: string;
  readonly createdAt: string;
  readonly disabledAt?: string;
  /** Registered before issuer, audience and https key sets were required: its proofs are refused. */
  readonly outdated: boolean;
}

/** A provider name ever registered, and whether its registration is enabled (not removed). */
export interface RegisteredName {
  readonly provider: string;
  readonly enabled: boolean;
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
