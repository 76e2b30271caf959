import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A new random secret (a session id or a link's token): 32 bytes, base64url. */
export const newConsoleSecret = (): string => randomBytes(32).toString("base64url");

/** What the database keeps of a console secret: its SHA-256, hex (a stolen copy of the table opens nothing). */
export const hashConsoleSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/**
 * The session's CSRF token: an HMAC under the session's own id, so only who holds the cookie can know it, and nothing
 * more is stored. Every console action must carry it (OWASP CSRF cheat sheet: synchronizer token pattern).
 */
export const csrfTokenOf = (sessionId: string): string =>
  createHmac("sha256", sessionId).update("idwallet console csrf").digest("base64url");

/** Compares two secrets in constant time (by their digests, so their lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest());
}
