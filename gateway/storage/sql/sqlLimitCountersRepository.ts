import type { Kysely } from "kysely";
import { z } from "zod";
import type { LimitCountersRepository, RuleHits } from "../../limits/limitCountersRepository";
import type { DatabaseSchema } from "../schema";
import { unsyncedTransaction } from "./dialect/durability";

// Conventions 4: rows read back are parsed.
const HitRow = z.object({ count: z.number().int().positive(), expires_at: z.string().datetime() });
const KeyedHitRow = HitRow.extend({ key: z.string() });
/** Keys counted in one statement at most (SQLite allows 32,766 bound values; each key binds four). */
const KEYS_PER_STATEMENT = 1000;

/**
 * LimitCountersRepository: one upsert per rule of a group of hits, in a transaction committed without waiting for the disk (a count a power cut takes back costs nothing), atomic across processes (SQLite: the statement holds the write lock;
 * PostgreSQL: the upsert's row lock, a concurrent first insert of a key waits for the other and then updates it).
 * Dialect-neutral, so PostgreSQL uses it too. Both evaluate every SET expression on the row as it was, so `count`
 * and `expires_at` decide on the same stored window.
 */
export class SqlLimitCountersRepository implements LimitCountersRepository {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async hit(rule: string, key: string, now: Date, newWindowEnd: Date): Promise<{ count: number; windowEnd: Date }> {
    const [counted] = await this.hitMany([{ rule, hits: new Map([[key, 1]]), newWindowEnd }], now);
    return counted!.get(key)!;
  }

  async hitMany(batches: readonly RuleHits[], now: Date): Promise<Map<string, { count: number; windowEnd: Date }>[]> {
    // A count a power cut takes back lets a few more hits through, once; a synced commit per batch cost the hot paths
    // that count (a CCIP answer computed) more than the count itself.
    return unsyncedTransaction(this.db, async (trx) => {
      const all: Map<string, { count: number; windowEnd: Date }>[] = [];
      for (const { rule, hits, newWindowEnd } of batches) {
        const counted = new Map<string, { count: number; windowEnd: Date }>();
        // In key order: PostgreSQL locks the rows in the order of VALUES, and two instances' batches holding the same
        // keys in other orders would deadlock (one aborted after deadlock_timeout, every hit of its batch with it).
        const entries = [...hits].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (let start = 0; start < entries.length; start += KEYS_PER_STATEMENT) {
          const slice = entries.slice(start, start + KEYS_PER_STATEMENT);
          for (const row of await upsert(trx, rule, slice, now, newWindowEnd)) {
            const parsed = KeyedHitRow.parse({ key: row.key, count: Number(row.count), expires_at: row.expires_at });
            counted.set(parsed.key, { count: parsed.count, windowEnd: new Date(parsed.expires_at) });
          }
        }
        all.push(counted);
      }
      return all;
    });
  }

  async deleteEnded(now: Date): Promise<number> {
    const result = await this.db
      .deleteFrom("limit_counters")
      .where("expires_at", "<=", now.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** One upsert of several keys: a key's count grows by its hits in its window, or restarts at them in a new one. */
function upsert(db: Kysely<DatabaseSchema>, rule: string, entries: [string, number][], now: Date, newWindowEnd: Date) {
  const at = now.toISOString();
  const end = newWindowEnd.toISOString();
  return db
    .insertInto("limit_counters")
    .values(entries.map(([key, count]) => ({ rule, key, count, expires_at: end })))
    .onConflict((oc) =>
      // Qualified: in PostgreSQL's DO UPDATE a bare column could be the stored row's or `excluded`'s.
      oc.columns(["rule", "key"]).doUpdateSet((eb) => {
        const ended = eb("limit_counters.expires_at", "<=", at);
        return {
          count: eb
            .case()
            .when(ended)
            .then(eb.ref("excluded.count"))
            .else(eb("limit_counters.count", "+", eb.ref("excluded.count")))
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
    .returning(["key", "count", "expires_at"])
    .execute();
}
