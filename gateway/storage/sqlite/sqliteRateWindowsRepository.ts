import type { Kysely } from "kysely";
import type { RateWindowsRepository } from "../rateWindowsRepository";
import type { DatabaseSchema } from "../schema";

/** RateWindowsRepository on SQLite: one upsert in a `begin immediate` transaction, atomic across processes. */
export class SqliteRateWindowsRepository implements RateWindowsRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async hit(appId: string, windowStart: Date): Promise<number> {
    const start = windowStart.toISOString();
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("app_rate_windows").where("app_id", "=", appId).where("window_start", "<", start).execute();
      const row = await trx
        .insertInto("app_rate_windows")
        .values({ app_id: appId, window_start: start, count: 1 })
        .onConflict((oc) =>
          oc.columns(["app_id", "window_start"]).doUpdateSet((eb) => ({ count: eb("count", "+", 1) })),
        )
        .returning("count")
        .executeTakeFirstOrThrow();
      return Number(row.count);
    });
  }
}
