import { type Kysely, sql } from "kysely";
import type { DatabaseSchema } from "../schema";
import type { TxStatus } from "../../transactions/txRecord";

/** TransactionsRepository.revertedGasByChain: gas of each chain's reverted wallet bundles, charged to no request. */
export async function revertedGasByChain(db: Kysely<DatabaseSchema>): Promise<{ chain: string; gas: bigint }[]> {
  const rows = await db
    .selectFrom("bundles")
    .select(["chain", sql<number>`sum(reverted_gas)`.as("gas")])
    .where("reverted_gas", "is not", null)
    .groupBy("chain")
    .execute();
  return rows.map((row) => ({ chain: row.chain, gas: BigInt(row.gas) }));
}

/** TransactionsRepository.countByStatus: how many requests each chain has in each status (queue depth). */
export async function countByStatus(
  db: Kysely<DatabaseSchema>,
): Promise<{ chain: string; status: TxStatus; count: number }[]> {
  const rows = await db
    .selectFrom("transactions")
    .select(["chain", "status", (eb) => eb.fn.countAll<number>().as("count")])
    .groupBy(["chain", "status"])
    .execute();
  return rows.map((row) => ({ chain: row.chain, status: row.status, count: Number(row.count) }));
}
