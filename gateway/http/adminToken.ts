import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * Whether the Authorization header is `Bearer <expected>`; always false when no token is configured. Compared in
 * constant time over SHA-256 digests, so neither the token's characters nor its length leak through timing.
 */
export function hasAdminToken(authorization: string | undefined, expected: string | undefined): boolean {
  if (expected === undefined || authorization === undefined) return false;
  const sent = authorization.startsWith("Bearer ") ? authorization.slice(7) : "";
  return timingSafeEqual(digest(sent), digest(expected));
}
