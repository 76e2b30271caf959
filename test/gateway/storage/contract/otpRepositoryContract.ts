import { expect } from "chai";
import { sql } from "kysely";
import type { OtpCode } from "../../../../gateway/auth/otp/storedCode";
import { type OpenTestDatabase, openTestStore, type TestStore } from "../builders";

const HASH = "ab".repeat(32);
const newCode = (phone: string, createdAt: string) => ({
  phone,
  codeHash: HASH,
  createdAt,
  expiresAt: new Date(Date.parse(createdAt) + 300_000).toISOString(),
});

/** What every OtpRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function otpRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: otp codes (${dialect})`, () => {
    let store: TestStore;
    beforeEach(async () => {
      store = await openTestStore(open);
    });
    afterEach(() => store.database.close());

    it("issues a code, leaving the phone's earlier codes usable (a new code must not void the one being typed)", async () => {
      const otp = store.repos.otp;
      const first = await otp.issue(newCode("14155552671", "2025-01-01T00:00:00.000Z"), new Date(0), () => undefined);
      await otp.issue(newCode("12124567890", "2025-01-01T00:00:01.000Z"), new Date(0), () => undefined);
      let seen: readonly OtpCode[] = [];
      const second = await otp.issue(newCode("14155552671", "2025-01-01T00:00:02.000Z"), new Date(0), (recent) => {
        seen = recent;
        return undefined;
      });
      expect("issued" in first && "issued" in second).to.equal(true);
      expect(seen.map((code) => code.phone)).to.deep.equal(["14155552671"]);
      const rows = await store.database.db
        .selectFrom("otp_codes")
        .select(["phone", "used"])
        .orderBy("created_at")
        .execute();
      expect(rows).to.deep.equal([
        { phone: "14155552671", used: 0 },
        { phone: "12124567890", used: 0 },
        { phone: "14155552671", used: 0 },
      ]);
    });

    it("stores nothing when the admission check refuses", async () => {
      const result = await store.repos.otp.issue(
        newCode("14155552671", "2025-01-01T00:00:00.000Z"),
        new Date(0),
        () => "no",
      );
      expect(result).to.deep.equal({ refused: "no" });
      expect(await store.database.db.selectFrom("otp_codes").selectAll().execute()).to.deep.equal([]);
    });

    it("judges the phone's latest and live codes and applies the mark in the same transaction", async () => {
      const otp = store.repos.otp;
      const phone = "14155552671";
      await otp.issue(newCode(phone, "2025-01-01T00:00:00.000Z"), new Date(0), () => undefined);
      await otp.issue(newCode(phone, "2025-01-01T00:04:00.000Z"), new Date(0), () => undefined);
      await otp.issue(newCode("12124567890", "2025-01-01T00:04:00.000Z"), new Date(0), () => undefined);
      const at = (iso: string) => new Date(iso);
      const failed = { kind: "failedAttempt", at: "2025-01-01T00:04:30.000Z" } as const;
      // At 00:04:30 both of the phone's codes live; the failure is counted on the latest.
      expect(
        await otp.attempt(phone, at("2025-01-01T00:04:30.000Z"), (state) => ({
          result: [state.latest?.createdAt, state.latest?.attempts, state.live.map((code) => code.createdAt)],
          mark: failed,
        })),
      ).to.deep.equal(["2025-01-01T00:04:00.000Z", 0, ["2025-01-01T00:04:00.000Z", "2025-01-01T00:00:00.000Z"]]);
      // Past the first code's expiry only the second lives; the count carried.
      expect(
        await otp.attempt(phone, at("2025-01-01T00:05:00.000Z"), (state) => ({
          result: [state.latest?.attempts, state.latest?.lastFailedAt, state.live.length],
          mark: { kind: "used" },
        })),
      ).to.deep.equal([1, failed.at, 1]);
      // A login uses every code of the phone and clears the count; the other phone's code is untouched.
      expect(
        await otp.attempt(phone, at("2025-01-01T00:00:30.000Z"), (state) => ({
          result: [state.latest?.used, state.latest?.attempts, state.live.length],
        })),
      ).to.deep.equal([true, 0, 0]);
      expect(
        await otp.attempt("12124567890", at("2025-01-01T00:04:30.000Z"), (state) => ({ result: state.live.length })),
      ).to.equal(1);
      expect(
        await otp.attempt("19999999999", at("2025-01-01T00:04:30.000Z"), (state) => ({
          result: state,
          mark: { kind: "used" },
        })),
      ).to.deep.equal({ latest: undefined, live: [] });
    });

    it("refuses rows that break the table's constraints", async () => {
      const insert = (id: string, attempts: number, used: number) =>
        sql`insert into otp_codes (id, phone, code_hash, created_at, expires_at, attempts, used)
          values (${id}, '1', 'h', '2025-01-01T00:00:00.000Z', '2025-01-01T00:05:00.000Z', ${attempts}, ${used})`
          .execute(store.database.db)
          .then(
            () => "inserted",
            (error: Error) => error.message,
          );
      expect(await insert("a", 0, 0)).to.equal("inserted");
      expect(await insert("b", -1, 0)).to.match(/check constraint.*otp_codes_attempts_check/i);
      expect(await insert("c", 0, 2)).to.match(/check constraint.*otp_codes_used_check/i);
    });

    it("orders codes issued in one millisecond as they were issued: the later one is the latest", async () => {
      const otp = store.repos.otp;
      const phone = "14155552671";
      const at = "2025-01-01T00:00:00.000Z";
      const issued: string[] = [];
      for (let i = 0; i < 5; i++) {
        const result = await otp.issue(
          { ...newCode(phone, at), codeHash: `${i}`.repeat(64) },
          new Date(0),
          () => undefined,
        );
        if ("issued" in result) issued.push(result.issued.id);
      }
      let recent: readonly OtpCode[] = [];
      await otp.issue(newCode(phone, at), new Date(0), (codes) => {
        recent = codes;
        return "enough";
      });
      expect(recent.map((code) => code.id)).to.deep.equal(issued);
      const seen = await otp.attempt(phone, new Date(at), (state) => ({
        result: [state.latest?.id, state.live.map((code) => code.id)],
      }));
      expect(seen).to.deep.equal([issued[4], [...issued].reverse()]);
    });
  });
}
