import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { parseScryptHash, scryptOf } from "./legacyScryptSecret";

// Design §1.6: a client secret is stored only as a one-way hash. It is 256 random bits, so nobody can find it from
// its hash by guessing, however fast the hash: a slow, memory-hard one (scrypt, until now) only made every token
// request cost 16 MiB and tens of milliseconds, unauthenticated callers' included. HMAC-SHA256 is one-way and cheap.
// Its key is a fixed label, not a server-side pepper: against a 256-bit secret a pepper adds no protection, only a
// key whose loss or rotation would void every app's credentials. The label separates these hashes from any other
// SHA-256 of the same bytes. No salt either: secrets are random and distinct, so equal hashes cannot occur.
const SCHEME = "hmac-sha256";
const HMAC_KEY = "idwallet client secret v1";
const SECRET_BYTES = 32;

const hmacOf = (secret: string): Buffer => createHmac("sha256", HMAC_KEY).update(secret, "utf8").digest();

/** A new client secret: 32 random bytes, base64url (43 characters). */
export const generateClientSecret = (): string => randomBytes(SECRET_BYTES).toString("base64url");

/** The stored form of a secret: `hmac-sha256$<base64url HMAC>`, self-describing so the scheme can change later. */
export const hashClientSecret = (secret: string): string => `${SCHEME}$${hmacOf(secret).toString("base64url")}`;

/** Whether `stored` is in the current form; a secret that matches an older one is rewritten (upgrade on use). */
export const isCurrentHash = (stored: string): boolean => stored.startsWith(`${SCHEME}$`);

/**
 * The hash to store in place of `stored` once `secret` matched it: the current form, if `stored` is of an older one
 * (upgrade on use); undefined if it is current.
 */
export const upgradedHash = (secret: string, stored: string): string | undefined =>
  isCurrentHash(stored) ? undefined : hashClientSecret(secret);

/** The digest a secret must reproduce, and how to compute it; undefined for a hash this code never wrote. */
function expectedDigest(stored: string): { expected: Buffer; digest: (s: string) => Promise<Buffer> } | undefined {
  if (isCurrentHash(stored)) {
    const expected = Buffer.from(stored.slice(SCHEME.length + 1), "base64url");
    return expected.length === 32 ? { expected, digest: async (s) => hmacOf(s) } : undefined;
  }
  const scrypt = parseScryptHash(stored);
  return scrypt && { expected: scrypt.key, digest: (s) => scryptOf(s, scrypt) };
}

// Stands in for a missing or unreadable hash, so an unknown client id costs what a wrong secret costs; random, so
// no secret matches it.
const DUMMY = { expected: randomBytes(32), digest: async (s: string) => hmacOf(s) };

/**
 * Checks `secret` against a stored hash (either form) in constant time. With no stored hash (unknown client id) it
 * still hashes and compares, against a dummy, so the response time does not tell which client ids exist.
 */
export async function verifyClientSecret(secret: string, stored: string | undefined): Promise<boolean> {
  const known = stored === undefined ? undefined : expectedDigest(stored);
  const { expected, digest } = known ?? DUMMY;
  const actual = await digest(secret);
  return timingSafeEqual(actual, expected) && known !== undefined;
}
