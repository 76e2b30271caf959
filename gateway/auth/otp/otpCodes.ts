import { createHmac, hkdfSync, randomInt, timingSafeEqual } from "node:crypto";

/** Digits of a login code (spec §8). */
export const OTP_LENGTH = 6;

/** A fresh uniformly random 6-digit code, zero-padded. */
export const generateOtpCode = (): string => String(randomInt(0, 10 ** OTP_LENGTH)).padStart(OTP_LENGTH, "0");

/**
 * The HMAC key of stored codes: OTP_HMAC_SECRET, or else derived from the token secret with HKDF-SHA256 so the
 * two uses never share a key.
 */
export function otpHmacKey(options: { hmacSecret?: string; tokenSecret: string }): Buffer {
  if (options.hmacSecret !== undefined) return Buffer.from(options.hmacSecret, "utf8");
  return Buffer.from(hkdfSync("sha256", Buffer.from(options.tokenSecret, "utf8"), Buffer.alloc(0), "idwallet otp", 32));
}

/** Hex HMAC-SHA256 of a code bound to its phone (design §1.6: codes are stored hashed only). */
export const hashOtpCode = (key: Buffer, phoneDigits: string, code: string): string =>
  createHmac("sha256", key).update(`${phoneDigits}:${code}`).digest("hex");

/** Whether `code` is the one hashed in `storedHash`, compared in constant time. */
export function otpCodeMatches(key: Buffer, phoneDigits: string, code: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, "hex");
  const actual = Buffer.from(hashOtpCode(key, phoneDigits, code), "hex");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
