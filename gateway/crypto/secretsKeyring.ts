import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// Secrets stored at rest (HS256 provider secrets) are sealed with AES-256-GCM under SECRETS_KEY. A sealed value is
// `v1.<key id>.<iv>.<ciphertext ‖ tag>` (base64url): the key id says which key opens it, so a key can be rotated
// (the new one in SECRETS_KEY, the old one in SECRETS_KEY_PREVIOUS until every value is sealed again). The header
// and the caller's context (which row the value belongs to) are the additional authenticated data: a value copied
// into another row, or with its header edited, does not open. NIST SP 800-38D: 96-bit random IVs, 128-bit tags;
// with far fewer than 2^32 values sealed under one key, random IVs do not repeat.
const VERSION = "v1";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value could not be made or opened: no key, an unknown key, or a value altered or moved. */
export class SecretsKeyError extends Error {
  override readonly name = "SecretsKeyError";
}

/**
 * A 32-byte key from its text: 64 hex digits, or base64 / base64url (43 or 44 characters); undefined if it is
 * neither. Generate one with `openssl rand -hex 32`.
 */
export function decodeSecretsKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed, trimmed.includes("-") || trimmed.includes("_") ? "base64url" : "base64");
  return key.length === KEY_BYTES ? key : undefined;
}

/** Seals and opens secrets with the current key; opens with the previous one too. */
export interface SecretsKeyring {
  /** The id of the key new values are sealed under (a fingerprint, not the key). */
  readonly currentKeyId: string;
  /** Seals `plaintext` for `context` (what it belongs to, e.g. a provider name). */
  seal(plaintext: string, context: string): string;
  /** Opens a value sealed for `context`; throws SecretsKeyError if it cannot. */
  open(sealed: string, context: string): string;
  /** The id of the key `sealed` was sealed under, or undefined if it is not a sealed value. */
  keyIdOf(sealed: string): string | undefined;
}

/** The public id of a key: 16 hex digits of a labelled SHA-256 of it, which reveals nothing of the key. */
const keyIdOf = (key: Buffer): string =>
  createHash("sha256").update("idwallet secrets key id\0").update(key).digest("hex").slice(0, 16);

const aad = (header: string, context: string): Buffer => Buffer.from(`${header}\0${context}`, "utf8");

/**
 * The keyring of the SECRETS_KEY settings (key text as decodeSecretsKey reads it), or undefined when no key is set.
 * Throws on a key that does not decode (the configuration schema refuses those first).
 */
export function createSecretsKeyring(settings: { key?: string; previousKey?: string }): SecretsKeyring | undefined {
  if (settings.key === undefined) return undefined;
  const decode = (text: string): Buffer => {
    const key = decodeSecretsKey(text);
    if (!key) throw new SecretsKeyError("a secrets key is 32 bytes: 64 hex digits or base64");
    return key;
  };
  const current = decode(settings.key);
  const currentKeyId = keyIdOf(current);
  const keys = new Map([[currentKeyId, current]]);
  if (settings.previousKey !== undefined) {
    const previous = decode(settings.previousKey);
    keys.set(keyIdOf(previous), previous);
  }
  const parse = (sealed: string) => {
    const [version, keyId, iv, body, ...rest] = sealed.split(".");
    if (version !== VERSION || !keyId || !iv || !body || rest.length > 0) return undefined;
    return { keyId, iv: Buffer.from(iv, "base64url"), body: Buffer.from(body, "base64url") };
  };
  return {
    currentKeyId,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const header = `${VERSION}.${currentKeyId}`;
      const cipher = createCipheriv("aes-256-gcm", current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(header, context));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${header}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed, context) {
      const parts = parse(sealed);
      if (!parts || parts.iv.length !== IV_BYTES || parts.body.length < TAG_BYTES) {
        throw new SecretsKeyError("not a sealed secret");
      }
      const key = keys.get(parts.keyId);
      if (!key) {
        throw new SecretsKeyError(
          `sealed under key ${parts.keyId}, which is neither SECRETS_KEY (${currentKeyId}) nor SECRETS_KEY_PREVIOUS`,
        );
      }
      const decipher = createDecipheriv("aes-256-gcm", key, parts.iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(`${VERSION}.${parts.keyId}`, context));
      decipher.setAuthTag(parts.body.subarray(parts.body.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(parts.body.subarray(0, -TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretsKeyError("the sealed secret does not open: altered, or moved from another row");
      }
    },
    keyIdOf: (sealed) => parse(sealed)?.keyId,
  };
}
