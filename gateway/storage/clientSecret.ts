import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

// Design §1.6: client secrets are stored only as scrypt hashes. The secrets are 256 random bits, so the hash only
// has to be one-way, not slow against guessing: the interactive-login parameters of the scrypt paper (N=2^14,
// r=8, p=1: 16 MiB, tens of milliseconds) keep the token endpoint cheap.
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const SECRET_BYTES = 32;
// Upper bounds for parameters read back from storage, so a tampered row cannot make a check exhaust memory.
const MAX_N = 1 << 17;
const MAX_R = 16;
const MAX_P = 4;

const scryptAsync = (secret: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    // scrypt needs 128·N·r bytes; node's 32 MiB default maxmem would refuse stronger stored parameters.
    const withMemory = { ...options, maxmem: 256 * (options.N ?? 1) * (options.r ?? 1) };
    scrypt(secret, salt, keyLength, withMemory, (error, key) => (error ? reject(error) : resolve(key)));
  });

/** A new client secret: 32 random bytes, base64url (43 characters). */
export const generateClientSecret = (): string => randomBytes(SECRET_BYTES).toString("base64url");

/** Hashes a secret into the self-describing `scrypt$N$r$p$saltB64$hashB64`, so parameters can rise later. */
export async function hashClientSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(secret, salt, KEY_BYTES, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64"), key.toString("base64")].join("$");
}

interface ParsedHash {
  readonly options: ScryptOptions;
  readonly salt: Buffer;
  readonly key: Buffer;
}

/** Parses a stored hash; undefined when it is not one this code wrote (treated as "does not match"). */
function parseStoredHash(stored: string): ParsedHash | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split("$");
  if (scheme !== "scrypt" || salt === undefined || key === undefined || rest.length > 0) return undefined;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  const powerOfTwo = Number.isInteger(N) && N > 1 && N <= MAX_N && (N & (N - 1)) === 0;
  if (!powerOfTwo || !Number.isInteger(R) || R < 1 || R > MAX_R || !Number.isInteger(P) || P < 1 || P > MAX_P) {
    return undefined;
  }
  const keyBytes = Buffer.from(key, "base64");
  if (keyBytes.length === 0) return undefined;
  return { options: { N, r: R, p: P }, salt: Buffer.from(salt, "base64"), key: keyBytes };
}

// Stands in for a missing or unreadable hash so the check costs the same; random, so no secret can match it.
const DUMMY: ParsedHash = { options: PARAMS, salt: randomBytes(SALT_BYTES), key: randomBytes(KEY_BYTES) };

/**
 * Checks `secret` against a stored hash in constant time. With no stored hash (unknown client id) it still
 * runs scrypt against a dummy, so the response time does not tell which client ids exist.
 */
export async function verifyClientSecret(secret: string, stored: string | undefined): Promise<boolean> {
  const parsed = stored === undefined ? undefined : parseStoredHash(stored);
  const target = parsed ?? DUMMY;
  const actual = await scryptAsync(secret, target.salt, target.key.length, target.options);
  return parsed !== undefined && timingSafeEqual(actual, target.key);
}
