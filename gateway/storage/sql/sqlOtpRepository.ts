import { sql, type Kysely, type Selectable } from "kysely";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import {
  OtpCode,
  type NewOtpCode,
  type OtpLoginState,
  type OtpMark,
  type OtpSentSince,
  carriedFailures,
} from "../../auth/otp/storedCode";
import { type OtpRepository } from "../../auth/otp/otpRepository";
import { lockKeys } from "./dialect/keyLocks";
import type { DatabaseSchema, OtpCodesTable } from "../schema";

/** `otp_` + 24 hex characters. */
const newOtpId = (): string => `otp_${randomBytes(12).toString("hex")}`;

// Conventions 4: rows read back are parsed.
const OtpRow = z
  .object({
    id: z.string(),
    phone: z.string(),
    code_hash: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    attempts: z.number(),
    last_failed_at: z.string().nullable(),
    used: z.union([z.literal(0), z.literal(1)]),
  })
  .transform((row) => ({
    id: row.id,
    phone: row.phone,
    codeHash: row.code_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    attempts: row.attempts,
    lastFailedAt: row.last_failed_at,
    used: row.used === 1,
  }))
  .pipe(OtpCode);

const toOtpCode = (row: Selectable<OtpCodesTable>): OtpCode => OtpRow.parse(row);

/** Lock keys of issuing codes (which counts every phone's) and of one phone's codes (see `lockKeys`). */
const ISSUING = "otp:issue";
const phoneKey = (phone: string): string => `otp:phone:${phone}`;

/**
 * OtpRepository on SQLite and PostgreSQL; every read-decide-write runs in one transaction, serialized with the others
 * of its phone (and every issue with the other issues, which count all phones' codes): by `begin immediate` on SQLite,
 * by advisory locks on PostgreSQL.
 */
export class SqlOtpRepository implements OtpRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async issue<R>(
    code: NewOtpCode,
    recentSince: Date,
    admit: (recent: readonly OtpCode[], sent: OtpSentSince) => R | undefined,
  ): Promise<{ issued: OtpCode } | { refused: R }> {
    return this.db.transaction().execute(async (trx) => {
      await lockKeys(trx, [ISSUING, phoneKey(code.phone)]);
      const recent = await trx
        .selectFrom("otp_codes")
        .selectAll()
        .where("phone", "=", code.phone)
        .where("created_at", ">=", recentSince.toISOString())
        .orderBy("created_at")
        .orderBy("seq")
        .execute();
      const sent = await trx
        .selectFrom("otp_codes")
        .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("created_at").as("oldest")])
        .where("created_at", ">=", recentSince.toISOString())
        .executeTakeFirstOrThrow();
      const codes = recent.map(toOtpCode);
      const refusal = admit(codes, { count: Number(sent.count), oldestAt: sent.oldest ?? undefined });
      if (refusal !== undefined) return { refused: refusal };
      const carried = carriedFailures(codes);
      const row = await trx
        .insertInto("otp_codes")
        .values({
          id: newOtpId(),
          phone: code.phone,
          code_hash: code.codeHash,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
          attempts: carried.attempts,
          last_failed_at: carried.lastFailedAt,
          used: 0,
          // Next in the phone's issue order (under the phone's lock, so no other code takes the same number).
          seq: sql<number>`(select coalesce(max(seq), 0) + 1 from otp_codes where phone = ${code.phone})`,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { issued: toOtpCode(row) };
    });
  }

  async attempt<R>(
    phone: string,
    now: Date,
    judge: (state: OtpLoginState) => { result: R; mark?: OtpMark },
  ): Promise<R> {
    return this.db.transaction().execute(async (trx) => {
      await lockKeys(trx, [phoneKey(phone)]);
      const row = await trx
        .selectFrom("otp_codes")
        .selectAll()
        .where("phone", "=", phone)
        .orderBy("created_at", "desc")
        .orderBy("seq", "desc")
        .limit(1)
        .executeTakeFirst();
      const latest = row && toOtpCode(row);
      const live = latest
        ? (
            await trx
              .selectFrom("otp_codes")
              .selectAll()
              .where("phone", "=", phone)
              .where("used", "=", 0)
              .where("expires_at", ">", now.toISOString())
              .orderBy("created_at", "desc")
              .orderBy("seq", "desc")
              .execute()
          ).map(toOtpCode)
        : [];
      const { result, mark } = judge({ latest, live });
      if (latest && mark?.kind === "used") {
        // A login ends every code of the phone; the failure count lives on the latest row.
        await trx.updateTable("otp_codes").set({ used: 1 }).where("phone", "=", phone).where("used", "=", 0).execute();
        await trx
          .updateTable("otp_codes")
          .set({ attempts: 0, last_failed_at: null })
          .where("id", "=", latest.id)
          .execute();
      } else if (latest && mark?.kind === "failedAttempt") {
        await trx
          .updateTable("otp_codes")
          .set((eb) => ({ attempts: eb("attempts", "+", 1), last_failed_at: mark.at }))
          .where("id", "=", latest.id)
          .execute();
      }
      return result;
    });
  }

  async invalidate(id: string): Promise<void> {
    await this.db.updateTable("otp_codes").set({ used: 1 }).where("id", "=", id).execute();
  }

  async deleteCreatedBefore(cutoff: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("otp_codes")
      .where("created_at", "<", cutoff.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
