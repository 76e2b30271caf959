import type { NewOtpCode, OtpCode, OtpLoginState, OtpMark, OtpSentSince } from "./storedCode";
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
