import { z } from "zod";
import type { ProviderRegistration } from "../../identity/providerRegistration";
import { SecretsKeyError, type SecretsKeyring } from "../../crypto/secretsKeyring";
import {
  type ProviderVerification,
  StoredProviderVerification,
  isOutdatedRegistration,
} from "../../identity/providerRegistration";
import type { AppProvidersTable } from "../schema";

// Rows are written by this code or an older version of it, so they are parsed: an HS256 key holds `sealedSecret`
// (AES-256-GCM, crypto/secretsKeyring.ts) or, from versions before sealing, `secret` in plain text.
const StoredVerification = z.looseObject({
  key: z.looseObject({
    kind: z.string(),
    secret: z.string().optional(),
    sealedSecret: z.string().optional(),
    url: z.string().optional(),
  }),
  issuer: z.string().optional(),
  audience: z.string().optional(),
});

/** How a row's HS256 secret is stored. */
export type StoredSecret =
  | { readonly state: "none" }
  | { readonly state: "plain"; readonly secret: string }
  | { readonly state: "sealed"; readonly sealed: string };

const SETTING_HINT = 'set SECRETS_KEY (docs/auth.md, "Provider secrets at rest")';

/** What a secret is sealed for: the provider and the app owning it, so a sealed value moved to another row does not open. */
const sealContext = (provider: string, appId: string): string => `app_providers:${provider}:${appId}`;

/** The stored form of a row's HS256 secret, if it has one. */
export function storedSecret(row: Pick<AppProvidersTable, "verification">): StoredSecret {
  const { key } = StoredVerification.parse(JSON.parse(row.verification));
  if (key.kind !== "hs256") return { state: "none" };
  if (key.sealedSecret !== undefined) return { state: "sealed", sealed: key.sealedSecret };
  return { state: "plain", secret: z.string().parse(key.secret) };
}

/** The key kind of a stored row (hs256, rs256, es256, jwks), read without opening anything. */
export const storedKind = (row: Pick<AppProvidersTable, "verification">): string =>
  StoredVerification.parse(JSON.parse(row.verification)).key.kind;

/** The `iss` and `aud` a row's proofs must carry; missing from rows registered before they were required. */
export function storedClaims(row: Pick<AppProvidersTable, "verification">): { issuer?: string; audience?: string } {
  const { issuer, audience } = StoredVerification.parse(JSON.parse(row.verification));
  return { ...(issuer ? { issuer } : {}), ...(audience ? { audience } : {}) };
}

/** Whether a row predates the required issuer, audience and https key set (its proofs are refused). */
export const isOutdated = (row: Pick<AppProvidersTable, "verification">): boolean =>
  isOutdatedRegistration(StoredVerification.parse(JSON.parse(row.verification)));

/** Seals `secret` for the row of `provider`; throws SecretsKeyError without a keyring. */
export function sealSecret(
  keyring: SecretsKeyring | undefined,
  secret: string,
  provider: string,
  appId: string,
): string {
  if (!keyring) throw new SecretsKeyError(`an HS256 provider secret is stored only sealed: ${SETTING_HINT}`);
  return keyring.seal(secret, sealContext(provider, appId));
}

/** Opens the sealed secret of `provider`'s row; throws SecretsKeyError (naming the provider) if it cannot. */
export function openSecret(
  keyring: SecretsKeyring | undefined,
  sealed: string,
  provider: string,
  appId: string,
): string {
  if (!keyring) throw new SecretsKeyError(`provider ${provider} has a sealed HS256 secret: ${SETTING_HINT}`);
  try {
    return keyring.open(sealed, sealContext(provider, appId));
  } catch (error) {
    if (error instanceof SecretsKeyError) throw new SecretsKeyError(`provider ${provider}: ${error.message}`);
    throw error;
  }
}

/** The JSON stored for `verification`: an HS256 secret sealed as `sealedSecret`, anything else as it is. */
export function verificationJson(
  verification: ProviderVerification,
  keyring: SecretsKeyring | undefined,
  provider: string,
  appId: string,
): string {
  if (verification.key.kind !== "hs256") return JSON.stringify(verification);
  const { secret, ...key } = verification.key;
  const sealedSecret = sealSecret(keyring, secret, provider, appId);
  return JSON.stringify({ ...verification, key: { ...key, sealedSecret } });
}

/**
 * The registration a row stores, its HS256 secret opened. A secret still in plain text is refused, not used: the
 * service seals those at start-up, so one found later was written by an older version behind its back.
 */
export function toRegistration(row: AppProvidersTable, keyring: SecretsKeyring | undefined): ProviderRegistration {
  const stored = StoredVerification.parse(JSON.parse(row.verification));
  const secret = storedSecret(row);
  if (secret.state === "plain") {
    throw new SecretsKeyError(
      `the HS256 secret of provider ${row.provider} is stored in plain text; restart the service with SECRETS_KEY to seal it`,
    );
  }
  const key =
    secret.state === "sealed"
      ? { kind: stored.key.kind, secret: openSecret(keyring, secret.sealed, row.provider, row.app_id) }
      : stored.key;
  // Read as stored: an outdated row still loads (so its name stays taken), and the proof check refuses it.
  const verification = StoredProviderVerification.parse({ ...stored, key });
  return { provider: row.provider, appId: row.app_id, ...verification, disabled: row.disabled_at !== null };
}
