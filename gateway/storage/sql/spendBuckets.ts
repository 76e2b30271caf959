import { type Kysely, type Transaction, sql } from "kysely";
import type { DatabaseSchema, SpendScope } from "../schema";

/** Width of a spend bucket: a request counts as accepted at the start of its minute. */
export const BUCKET_MS = 60_000;

/** Whose spend on which chain a window sums: the app's, or one of its user ids'. */
export interface SpendKey {
  readonly appId: string;
  readonly scope: SpendScope;
  readonly userId: string;
  readonly chain: string;
}

/** The bucket (minutes since the epoch) a moment falls in. */
export function minuteOf(at: string | Date): number {
  return Math.floor((typeof at === "string" ? Date.parse(at) : at.getTime()) / BUCKET_MS);
}

/** A stored request as its buckets see it. */
interface CountedRow {
  readonly app_id: string;
  readonly user_id: string;
  readonly chain: string;
  readonly created_at: string;
}

/** The app's and the user id's keys a request counts under. */
function keysOf(row: CountedRow): SpendKey[] {
  return [
    { appId: row.app_id, scope: "app", userId: "", chain: row.chain },
    { appId: row.app_id, scope: "user", userId: row.user_id, chain: row.chain },
  ];
}

/** Adds a just-stored request's reservation to its buckets (one statement, both rows); run in the transaction that stores it. */
export async function reserveSpend(
  trx: Transaction<DatabaseSchema>,
  row: CountedRow & { readonly reserved_gas: number },
): Promise<void> {
  const minute = minuteOf(row.created_at);
  await trx
    .insertInto("spend_buckets")
    .values(
      keysOf(row).map((key) => ({
        app_id: key.appId,
        scope: key.scope,
        user_id: key.userId,
        chain: key.chain,
        minute,
        pending_gas: row.reserved_gas,
        settled_gas: 0,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(["app_id", "scope", "user_id", "chain", "minute"])
        // Qualified: in PostgreSQL's DO UPDATE a bare column could be the stored row's or `excluded`'s.
        .doUpdateSet({ pending_gas: sql<number>`spend_buckets.pending_gas + excluded.pending_gas` }),
    )
    .execute();
}

/**
 * Moves a request that just became final (`row`, as the settling update left it) from its buckets' pending gas
 * (`pendingGas`: what they counted for it) to their settled gas (what it cost); run in the transaction that settles
 * it, once (only when that transaction did change it to final).
 */
export async function settleSpend(
  trx: Transaction<DatabaseSchema>,
  row: CountedRow & { readonly settled_gas: number | null },
  pendingGas: number,
): Promise<void> {
  await addToBuckets(trx, row, { pending: -pendingGas, settled: Number(row.settled_gas ?? 0) });
}

/**
 * Adds `gas` to a pending request's buckets: what its sends burned has passed its reservation (a Safe relay's
 * reverted sends), and a pending request counts for the larger of the two.
 */
export async function growPendingSpend(trx: Transaction<DatabaseSchema>, row: CountedRow, gas: number): Promise<void> {
  if (gas > 0) await addToBuckets(trx, row, { pending: gas, settled: 0 });
}

/**
 * Adds to the pending and settled gas of a request's buckets (its app's and its user id's, at its minute): one
 * statement each, the app's first, the order acceptance (reserveSpend) locks them in too, so a settlement and an
 * acceptance of one user never wait on each other's rows (PostgreSQL would abort one as a deadlock).
 */
async function addToBuckets(
  trx: Transaction<DatabaseSchema>,
  row: CountedRow,
  add: { readonly pending: number; readonly settled: number },
): Promise<void> {
  for (const key of keysOf(row)) {
    await trx
      .updateTable("spend_buckets")
      .set({
        pending_gas: sql<number>`pending_gas + ${add.pending}`,
        settled_gas: sql<number>`settled_gas + ${add.settled}`,
      })
      .where("app_id", "=", key.appId)
      .where("scope", "=", key.scope)
      .where("user_id", "=", key.userId)
      .where("chain", "=", key.chain)
      .where("minute", "=", minuteOf(row.created_at))
      .execute();
  }
}

/** Buckets of `key` inside the window that starts after `since` (a request there was accepted after it). */
export function windowBuckets(trx: Kysely<DatabaseSchema>, key: SpendKey, since: Date) {
  return trx
    .selectFrom("spend_buckets")
    .where("app_id", "=", key.appId)
    .where("scope", "=", key.scope)
    .where("user_id", "=", key.userId)
    .where("chain", "=", key.chain)
    .where("minute", ">", minuteOf(since));
}

/**
 * Sums the window of `key` after `since`: at most a period's worth of buckets, plus any overdue reservations (two
 * range reads of the key's index, in one statement).
 */
export async function windowSpend(trx: Transaction<DatabaseSchema>, key: SpendKey, since: Date): Promise<bigint> {
  const sinceMinute = minuteOf(since);
  const ofKey = sql`app_id = ${key.appId} and scope = ${key.scope} and user_id = ${key.userId} and chain = ${key.chain}`;
  // A request accepted before the window and still unsettled can still spend (retries, a held close): it counts.
  const { rows } = await sql<{ in_window: number | string | null; overdue: number | string | null }>`
    select
      (select sum(pending_gas + settled_gas) from spend_buckets where ${ofKey} and minute > ${sinceMinute}) as in_window,
      (select sum(pending_gas) from spend_buckets where ${ofKey} and pending_gas > 0 and minute <= ${sinceMinute})
        as overdue`.execute(trx);
  const row = rows[0]!;
  return BigInt(row.in_window ?? 0) + BigInt(row.overdue ?? 0);
}
