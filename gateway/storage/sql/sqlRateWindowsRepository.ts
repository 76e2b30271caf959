import type { Kysely, Transaction } from "kysely";
import type { RateWindowsRepository } from "../../policy/rateWindowsRepository";
import type { DatabaseSchema } from "../schema";
import { unsyncedTransaction } from "./dialect/durability";

/** A hit waiting for the next write, and its caller. */
interface PendingHit {
  readonly appId: string;
  readonly start: string;
  readonly resolve: (count: number) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * RateWindowsRepository: the hits that arrive in one turn of the event loop are counted in one transaction, one upsert
 * per app and window, atomic across processes (SQLite: `begin immediate`; PostgreSQL: the upsert's row lock). Every
 * request of an app counts, so under load a transaction (and on SQLite a synced commit) per request would cost more
 * than the rest of its acceptance; the group shares one. Each caller still gets the window's count with its own hit,
 * every count given out once. The commit does not wait for the disk (unsyncedTransaction). Dialect-neutral, so
 * PostgreSQL uses it too.
 */
export class SqlRateWindowsRepository implements RateWindowsRepository {
  private pending: PendingHit[] = [];

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  hit(appId: string, windowStart: Date): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ appId, start: windowStart.toISOString(), resolve, reject });
      if (this.pending.length === 1) setImmediate(() => void this.countPending());
    });
  }

  private async countPending(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const groups = new Map<string, PendingHit[]>();
    for (const hit of batch) {
      const key = `${hit.appId} ${hit.start}`;
      const group = groups.get(key);
      if (group) group.push(hit);
      else groups.set(key, [hit]);
    }
    // Rows locked in one order by every batch, in this process and in others (PostgreSQL: two batches locking two apps'
    // windows in opposite orders would deadlock).
    const ordered = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, hits]) => hits);
    try {
      // A count lost to a power cut lets an app a few more requests at most: not worth a synced commit.
      const totals = await unsyncedTransaction(this.db, async (trx) => {
        const counted: number[] = [];
        for (const hits of ordered) counted.push(await countHits(trx, hits[0]!.appId, hits[0]!.start, hits.length));
        return counted;
      });
      // The group's hits took the counts up to its total, one each, in the order they came.
      ordered.forEach((hits, g) => hits.forEach((hit, i) => hit.resolve(totals[g]! - hits.length + 1 + i)));
    } catch (error) {
      for (const hit of batch) hit.reject(error);
    }
  }
}

/** Adds `hits` to the app's window starting at `start` and returns its count; the app's earlier windows are dropped. */
async function countHits(
  trx: Transaction<DatabaseSchema>,
  appId: string,
  start: string,
  hits: number,
): Promise<number> {
  await trx.deleteFrom("app_rate_windows").where("app_id", "=", appId).where("window_start", "<", start).execute();
  const row = await trx
    .insertInto("app_rate_windows")
    .values({ app_id: appId, window_start: start, count: hits })
    .onConflict((oc) =>
      // Qualified: in PostgreSQL's DO UPDATE a bare `count` could be the stored row's or `excluded`'s.
      oc
        .columns(["app_id", "window_start"])
        .doUpdateSet((eb) => ({ count: eb("app_rate_windows.count", "+", eb.ref("excluded.count")) })),
    )
    .returning("count")
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
