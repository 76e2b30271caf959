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

/** What a session opened with CONSOLE_TOKEN is labelled: the token's fingerprint names which token opened it. */
export const TOKEN_SESSION_LABEL = "console token";

/**
 * A short fingerprint of CONSOLE_TOKEN (8 hex characters of a SHA-256 under a fixed context): recorded in the label of
 * each session it opens, so a rotated token closes every session the old one opened, and shown in the action log,
 * so the operator can tell the token generations apart. It tells nothing of the token itself.
 */
export const tokenFingerprint = (token: string): string =>
  createHash("sha256").update(`idwallet console token:${token}`).digest("hex").slice(0, 8);

/** The label of a session opened with `token`. */
export const tokenSessionLabel = (token: string): string => `${TOKEN_SESSION_LABEL} ${tokenFingerprint(token)}`;
