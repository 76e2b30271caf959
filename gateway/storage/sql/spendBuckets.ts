import { type Kysely, type Transaction, sql } from "kysely";
import type { DatabaseSchema } from "../schema";
import type { SpendBucket, SpendKey, SpendWindowReader, WindowSums } from "../../transactions/spendWindow";

/**
 * The rows of `spend_buckets`: one per key and minute, its pending and settled gas (what counts, and when: the
 * domain's transactions/spendWindow.ts). Read and written only here.
 */

/**
 * Adds a just-stored request's reservation to the pending gas of its buckets (`keys` at `minute`): one statement, the
 * rows created if new. Run in the transaction that stores it.
 */
export async function reserveInBuckets(
  trx: Transaction<DatabaseSchema>,
  keys: readonly SpendKey[],
  minute: number,
  reservedGas: number,
): Promise<void> {
  await trx
    .insertInto("spend_buckets")
    .values(
      keys.map((key) => ({
        app_id: key.appId,
        scope: key.scope,
        user_id: key.userId,
        chain: key.chain,
        minute,
        pending_gas: reservedGas,
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
 * Adds to the pending and settled gas of the buckets of `keys` at `minute` (which exist: the request's acceptance
 * made them): one statement each, in the order of `keys`, the order acceptance (reserveInBuckets) locks them in too,
 * so a settlement and an acceptance of one user never wait on each other's rows (PostgreSQL would abort one as a
 * deadlock).
 */
export async function addToBuckets(
  trx: Transaction<DatabaseSchema>,
  keys: readonly SpendKey[],
  minute: number,
  add: { readonly pendingGas: bigint; readonly settledGas: bigint },
): Promise<void> {
  for (const key of keys) {
    await trx
      .updateTable("spend_buckets")
      .set({
        pending_gas: sql<number>`pending_gas + ${Number(add.pendingGas)}`,
        settled_gas: sql<number>`settled_gas + ${Number(add.settledGas)}`,
      })
      .where("app_id", "=", key.appId)
      .where("scope", "=", key.scope)
      .where("user_id", "=", key.userId)
      .where("chain", "=", key.chain)
      .where("minute", "=", minute)
      .execute();
  }
}

/** One settlement's change of one bucket, to be applied with a bundle's others. */
export interface BucketAddition {
  readonly key: SpendKey;
  readonly minute: number;
  readonly pendingGas: bigint;
  readonly settledGas: bigint;
}

/**
 * Applies a bundle's settlements to their buckets: one statement per bucket, however many of the bundle's requests
 * share it (its app's bucket of the minute: dozens), each bucket's changes summed. App buckets first, then user ids',
 * each in one order: the order addToBuckets and acceptance take them in, so none of them waits in a cycle.
 */
export async function addToBucketsTogether(
  trx: Transaction<DatabaseSchema>,
  additions: readonly BucketAddition[],
): Promise<void> {
  const summed = new Map<string, BucketAddition>();
  for (const a of additions) {
    const id = JSON.stringify([a.key.scope === "app" ? 0 : 1, a.key.appId, a.key.chain, a.key.userId, a.minute]);
    const before = summed.get(id);
    summed.set(
      id,
      before ? { ...a, pendingGas: before.pendingGas + a.pendingGas, settledGas: before.settledGas + a.settledGas } : a,
    );
  }
  const ordered = [...summed.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, a]) => a);
  for (const a of ordered) await addToBuckets(trx, [a.key], a.minute, a);
}

/**
 * Sums the buckets of `key` from `firstMinute` on (at most a period's worth), and the pending gas of its earlier ones
 * (the partial index of buckets still pending): two range reads of the key's index, in one statement.
 */
export async function readWindowSums(
  trx: Kysely<DatabaseSchema>,
  key: SpendKey,
  firstMinute: number,
): Promise<WindowSums> {
  const ofKey = sql`app_id = ${key.appId} and scope = ${key.scope} and user_id = ${key.userId} and chain = ${key.chain}`;
  type Sum = number | string | null;
  const { rows } = await sql<{ pending: Sum; settled: Sum; overdue: Sum }>`
    select w.pending, w.settled,
      (select sum(pending_gas) from spend_buckets where ${ofKey} and pending_gas > 0 and minute < ${firstMinute})
        as overdue
    from (
      select sum(pending_gas) as pending, sum(settled_gas) as settled from spend_buckets
      where ${ofKey} and minute >= ${firstMinute}) w`.execute(trx);
  const row = rows[0]!;
  return {
    pendingGas: BigInt(row.pending ?? 0),
    settledGas: BigInt(row.settled ?? 0),
    overdueGas: BigInt(row.overdue ?? 0),
  };
}

/** The buckets of `key` from `firstMinute` on, oldest first. */
export async function readWindowBuckets(
  trx: Kysely<DatabaseSchema>,
  key: SpendKey,
  firstMinute: number,
): Promise<SpendBucket[]> {
  const rows = await trx
    .selectFrom("spend_buckets")
    .select(["minute", "pending_gas", "settled_gas"])
    .where("app_id", "=", key.appId)
    .where("scope", "=", key.scope)
    .where("user_id", "=", key.userId)
    .where("chain", "=", key.chain)
    .where("minute", ">=", firstMinute)
    .orderBy("minute")
    .execute();
  return rows.map((row) => ({
    minute: Number(row.minute),
    pendingGas: BigInt(row.pending_gas),
    settledGas: BigInt(row.settled_gas),
  }));
}

/** The spend a limit check reads, read in `trx`. */
export const spendWindowReader = (trx: Transaction<DatabaseSchema>): SpendWindowReader => ({
  sums: (key, firstMinute) => readWindowSums(trx, key, firstMinute),
  buckets: (key, firstMinute) => readWindowBuckets(trx, key, firstMinute),
});
