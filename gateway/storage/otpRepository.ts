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

/** Storage of login codes. Policy (limits, expiry, attempts) belongs to the caller; atomicity to the store. */
export interface OtpRepository {
  /**
   * In one write transaction: hands `admit` the phone's codes created at or after `recentSince` (oldest first) and
   * the count of all phones' codes since then; if it returns undefined, stores `code`, carrying the latest recent
   * code's failed tries forward (so a new code does not reset the phone's backoff). Earlier codes stay usable until
   * they expire: anyone may ask for a code, so a new one must not void the one the user is typing. Otherwise
   * stores nothing and returns `admit`'s refusal.
   */
  issue<R>(
    code: NewOtpCode,
    recentSince: Date,
    admit: (recent: readonly OtpCode[], sent: OtpSentSince) => R | undefined,
  ): Promise<{ issued: OtpCode } | { refused: R }>;
  /**
   * In one write transaction: hands `judge` the phone's login state at `now` and applies the mark it returns, so
   * two concurrent tries cannot both use a code nor miscount the phone's failures.
   */
  attempt<R>(phone: string, now: Date, judge: (state: OtpLoginState) => { result: R; mark?: OtpMark }): Promise<R>;
  /** Marks one code used (e.g. its SMS could not be sent) so it can never verify. */
  invalidate(id: string): Promise<void>;
  /** Deletes codes created before `cutoff`; returns how many. */
  deleteCreatedBefore(cutoff: Date): Promise<number>;
}
