import { expect } from "chai";
import type { OtpLoginState, OtpMark } from "../../../../gateway/auth/otp/storedCode";
import { type SharedLocation, twoInstances } from "./concurrentAcceptContract";

const PHONE = "14155552671";
const AT = "2025-01-01T00:00:00.000Z";
const newCode = (n: number) => ({
  phone: PHONE,
  codeHash: `${n % 10}`.repeat(64),
  createdAt: AT,
  expiresAt: "2025-01-01T00:05:00.000Z",
});

/**
 * Phone login on two instances at once over one database: each check of a phone's codes and the write it decides must
 * hold, or an attacker spreading guesses (or a replayed code) over instances gets more than one instance allows.
 */
export function concurrentOtpContract(dialect: string, location: SharedLocation): void {
  describe(`storage: two instances judging phone logins at once (${dialect})`, () => {
    let instances: Awaited<ReturnType<typeof twoInstances>>;
    beforeEach(async () => {
      instances = await twoInstances(location);
    });
    afterEach(() => instances.close());
    const both = <T>(count: number, run: (otp: typeof instances.a.otp, i: number) => Promise<T>) =>
      Promise.all(Array.from({ length: count }, (_, i) => run((i % 2 === 0 ? instances.a : instances.b).otp, i)));

    it("an attacker spreading guesses over both instances gets no more tries than the lockout allows", async () => {
      await instances.a.otp.issue(newCode(0), new Date(0), () => undefined);
      const judge = (state: OtpLoginState): { result: string; mark?: OtpMark } =>
        (state.latest?.attempts ?? 0) >= 3
          ? { result: "locked" }
          : { result: "tried", mark: { kind: "failedAttempt", at: AT } };
      const results = await both(20, (otp) => otp.attempt(PHONE, new Date(AT), judge));
      expect(results.filter((r) => r === "tried")).to.have.length(3);
      const rows = await instances.db.selectFrom("otp_codes").select("attempts").execute();
      expect(rows).to.deep.equal([{ attempts: 3 }]);
    });

    it("one code replayed at both instances at once logs in once", async () => {
      await instances.a.otp.issue(newCode(0), new Date(0), () => undefined);
      const judge = (state: OtpLoginState): { result: string; mark?: OtpMark } =>
        state.live.length > 0 ? { result: "logged in", mark: { kind: "used" } } : { result: "refused" };
      const results = await both(20, (otp) => otp.attempt(PHONE, new Date(AT), judge));
      expect(results.filter((r) => r === "logged in")).to.have.length(1);
    });

    it("codes asked of both instances at once: no more issued than the phone's limit", async () => {
      const admit = (recent: readonly unknown[]) => (recent.length >= 3 ? "too many" : undefined);
      const results = await both(20, (otp, i) => otp.issue(newCode(i), new Date(0), admit));
      expect(results.filter((r) => "issued" in r)).to.have.length(3);
      const rows = await instances.db.selectFrom("otp_codes").select("seq").orderBy("seq").execute();
      expect(rows.map((row) => row.seq)).to.deep.equal([1, 2, 3]);
    });
  });
}
