import { scrypt, type ScryptOptions } from "node:crypto";

// Client secrets were stored as scrypt hashes until they moved to HMAC-SHA256 (clientSecret.ts). Such a hash is
// still accepted, and rewritten in the new form on its first successful use; nothing writes one any more.
// Upper bounds for parameters read back from storage, so a tampered row cannot make a check exhaust memory.
const MAX_N = 1 << 17;
const MAX_R = 16;
const MAX_P = 4;

/** A stored `scrypt$N$r$p$saltB64$hashB64`, parsed. */
export interface ScryptHash {
  readonly options: ScryptOptions;
  readonly salt: Buffer;
  readonly key: Buffer;
}

/** Parses a stored scrypt hash; undefined when it is not one (treated as "does not match"). */
export function parseScryptHash(stored: string): ScryptHash | undefined {
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

/** scrypt of `secret` with the stored hash's salt, length and parameters. */
export const scryptOf = (secret: string, hash: ScryptHash): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    // scrypt needs 128·N·r bytes; node's 32 MiB default maxmem would refuse stronger stored parameters.
    const maxmem = 256 * (hash.options.N ?? 1) * (hash.options.r ?? 1);
    scrypt(secret, hash.salt, hash.key.length, { ...hash.options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
