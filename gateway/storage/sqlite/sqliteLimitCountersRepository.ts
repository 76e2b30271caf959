import type { Kysely } from "kysely";
import { z } from "zod";
import type { LimitCountersRepository } from "../limitCountersRepository";
import type { DatabaseSchema } from "../schema";

// Conventions 4: rows read back are parsed.
const HitRow = z.object({ count: z.number().int().positive(), expires_at: z.string().datetime() });

/**
 * LimitCountersRepository: one upsert per hit, atomic across processes (SQLite: the statement holds the write lock;
 * PostgreSQL: the upsert's row lock, a concurrent first insert of a key waits for the other and then updates it).
 * Dialect-neutral, so PostgreSQL uses it too. Both evaluate every SET expression on the row as it was, so `count`
 * and `expires_at` decide on the same stored window.
 */
export class SqliteLimitCountersRepository implements LimitCountersRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async hit(rule: string, key: string, now: Date, newWindowEnd: Date): Promise<{ count: number; windowEnd: Date }> {
    const at = now.toISOString();
    const row = await this.db
      .insertInto("limit_counters")
      .values({ rule, key, count: 1, expires_at: newWindowEnd.toISOString() })
      .onConflict((oc) =>
        // Qualified: in PostgreSQL's DO UPDATE a bare column could be the stored row's or `excluded`'s.
        oc.columns(["rule", "key"]).doUpdateSet((eb) => {
          const ended = eb("limit_counters.expires_at", "<=", at);
          return {
            count: eb
              .case()
              .when(ended)
              .then(1)
              .else(eb("limit_counters.count", "+", 1))
              .end(),
            expires_at: eb
              .case()
              .when(ended)
              .then(eb.ref("excluded.expires_at"))
              .else(eb.ref("limit_counters.expires_at"))
              .end(),
          };
        }),
      )
      .returning(["count", "expires_at"])
      .executeTakeFirstOrThrow();
    const parsed = HitRow.parse({ count: Number(row.count), expires_at: row.expires_at });
    return { count: parsed.count, windowEnd: new Date(parsed.expires_at) };
  }

  async deleteEnded(now: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("limit_counters")
      .where("expires_at", "<=", now.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
