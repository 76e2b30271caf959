import { z } from "zod";
import { jwksUrlRefusal } from "./jwksUrl";
import { BUILT_IN_PROVIDERS } from "./userId";

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

/**
 * Whether a registration predates the required issuer, audience and https key set (rows registered before they were
 * required): its proofs are refused, and its owner may add it again without removing it first.
 */
export function isOutdatedRegistration(verification: {
  readonly key: { readonly kind: string; readonly url?: string };
  readonly issuer?: string;
  readonly audience?: string;
}): boolean {
  const { key, issuer, audience } = verification;
  const insecure = key.kind === "jwks" && jwksUrlRefusal(key.url ?? "", { allowInsecure: true }) !== undefined;
  return !issuer || !audience || insecure;
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
