import type { Kysely } from "kysely";
import type { RateWindowsRepository } from "../rateWindowsRepository";
import type { DatabaseSchema } from "../schema";

/**
 * RateWindowsRepository: one upsert in a transaction, atomic across processes (SQLite: `begin immediate`; PostgreSQL:
 * the upsert's row lock). Dialect-neutral, so PostgreSQL uses it too.
 */
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
          // Qualified: in PostgreSQL's DO UPDATE a bare `count` could be the stored row's or `excluded`'s.
          oc.columns(["app_id", "window_start"]).doUpdateSet((eb) => ({ count: eb("app_rate_windows.count", "+", 1) })),
        )
        .returning("count")
        .executeTakeFirstOrThrow();
      return Number(row.count);
    });
  }
}
