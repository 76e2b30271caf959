import { z } from "zod";

/** A stored phone login code (spec §4.5); the code itself is never stored, only its HMAC. */
export const OtpCode = z.object({
  id: z.string(),
  /** E.164 digits without "+". */
  phone: z.string().regex(/^\d{8,15}$/),
  codeHash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  /** Wrong codes tried for the phone since its last success, carried from code to code (the backoff's count). */
  attempts: z.number().int().min(0),
  /** The latest of those wrong tries; null if none. */
  lastFailedAt: z.iso.datetime().nullable(),
  /** No longer usable: verified (or another code of the phone was), or its SMS failed. */
  used: z.boolean(),
});
/** See {@link OtpCode}. */
export type OtpCode = z.infer<typeof OtpCode>;

/** A code to store: everything but the id, the attempt count, the last failure and the used flag. */
export type NewOtpCode = Pick<OtpCode, "phone" | "codeHash" | "createdAt" | "expiresAt">;

/**
 * What a verification does: `used` ends the login (the matching code and every other code of the phone are used,
 * the failed tries cleared); `failedAttempt` counts one more wrong try, at `at`, on the phone's latest code.
 */
export type OtpMark = { kind: "used" } | { kind: "failedAttempt"; at: string };

/** What a verification judges: the phone's latest code (the backoff state) and its codes still usable. */
export interface OtpLoginState {
  readonly latest: OtpCode | undefined;
  /** Unused codes not expired at the time given, newest first. */
  readonly live: readonly OtpCode[];
}

/** Codes stored by the whole service since a time: what the global SMS budget counts. */
export interface OtpSentSince {
  readonly count: number;
  /** The oldest of them (undefined if none). */
  readonly oldestAt: string | undefined;
}

/**
 * The failed tries a new code starts with: the latest recent code's (`recent` oldest first), so a new code does not
 * reset the phone's backoff; none without one.
 */
export function carriedFailures(recent: readonly OtpCode[]): Pick<OtpCode, "attempts" | "lastFailedAt"> {
  const latest = recent.at(-1);
  return { attempts: latest?.attempts ?? 0, lastFailedAt: latest?.lastFailedAt ?? null };
}
