import { type Kysely, type Selectable, sql } from "kysely";
import type { BundlesTable, DatabaseSchema } from "../schema";
import type {
  BundleSummary,
  ChainQueue,
  ConsoleReads,
  DeliverySummary,
  FinishedRequest,
  RequestFilter,
  RequestSummary,
  SpendMinute,
} from "../../console/consoleReads";
import { StoredHashes } from "./transactionRows";

/** ConsoleReads over SQLite and PostgreSQL: the console's listings, reads only. */
export class SqlConsoleReads implements ConsoleReads {
  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async requests(filter: RequestFilter): Promise<RequestSummary[]> {
    let query = this.db
      .selectFrom("transactions")
      .select([
        "id",
        "app_id",
        "user_id",
        "chain",
        "status",
        "created_at",
        "updated_at",
        "error_code",
        "transaction_hash",
      ])
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(filter.limit);
    if (filter.appId !== undefined) query = query.where("app_id", "=", filter.appId);
    if (filter.chain !== undefined) query = query.where("chain", "=", filter.chain);
    if (filter.id !== undefined) query = query.where("id", "=", filter.id);
    if (filter.userId !== undefined) query = query.where("user_id", "=", filter.userId);
    if (filter.status !== undefined) query = query.where("status", "=", filter.status);
    const rows = await query.execute();
    return rows.map((row) => ({
      id: row.id,
      appId: row.app_id,
      userId: row.user_id,
      chain: row.chain,
      status: row.status,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      errorCode: row.error_code ?? undefined,
      transactionHash: row.transaction_hash ?? undefined,
    }));
  }

  async queue(chain: string): Promise<ChainQueue> {
    const [counts, oldest, bundles] = await Promise.all([
      this.db
        .selectFrom("transactions")
        .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
        .where("chain", "=", chain)
        .where("status", "in", ["queued", "submitted"])
        .groupBy("status")
        .execute(),
      this.db
        .selectFrom("transactions")
        .select((eb) => eb.fn.min("created_at").as("oldest"))
        .where("chain", "=", chain)
        .where("status", "=", "queued")
        .executeTakeFirst(),
      this.db
        .selectFrom("bundles")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("chain", "=", chain)
        .where("status", "=", "pending")
        .executeTakeFirst(),
    ]);
    const count = (status: string) => Number(counts.find((row) => row.status === status)?.count ?? 0);
    return {
      queued: count("queued"),
      submitted: count("submitted"),
      pendingBundles: Number(bundles?.count ?? 0),
      oldestQueuedAt: oldest?.oldest ?? undefined,
    };
  }

  async finishedSince(chain: string, since: Date, limit: number): Promise<FinishedRequest[]> {
    const rows = await this.db
      .selectFrom("transactions as t")
      .leftJoin("bundles as b", "b.id", "t.bundle_id")
      .select(["t.status", "t.created_at", "t.updated_at", "t.error_code", "t.settled_gas", "b.max_fee_per_gas"])
      .where("t.chain", "=", chain)
      .where("t.status", "in", ["included", "failed"])
      .where("t.updated_at", ">=", since.toISOString())
      .orderBy("t.updated_at", "desc")
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      status: row.status as "included" | "failed",
      createdAt: row.created_at,
      finishedAt: row.updated_at,
      errorCode: row.error_code ?? undefined,
      settledGas: BigInt(row.settled_gas ?? 0),
      maxFeePerGas: row.max_fee_per_gas === null ? undefined : BigInt(row.max_fee_per_gas),
    }));
  }

  async recentBundles(chain: string, limit: number): Promise<BundleSummary[]> {
    const rows = await this.db
      .selectFrom("bundles")
      .selectAll()
      .where("chain", "=", chain)
      .orderBy("created_at", "desc")
      .limit(limit)
      .execute();
    return this.withRequests(rows);
  }

  async bundle(id: string): Promise<BundleSummary | undefined> {
    const rows = await this.db.selectFrom("bundles").selectAll().where("id", "=", id).execute();
    return (await this.withRequests(rows))[0];
  }

  async deliveriesOf(txId: string): Promise<DeliverySummary[]> {
    const rows = await this.db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_events as e", "e.seq", "d.event_seq")
      .innerJoin("webhook_endpoints as p", "p.id", "d.endpoint_id")
      .select([
        "e.id as event_id",
        "e.type",
        "p.id as endpoint_id",
        "p.url",
        "d.status",
        "d.attempts",
        "d.last_attempt_at",
        "d.last_status_code",
        "d.last_error",
      ])
      .where("d.tx_id", "=", txId)
      .orderBy("e.seq")
      .execute();
    return rows.map((row) => ({
      eventId: row.event_id,
      eventType: row.type,
      endpointId: row.endpoint_id,
      url: row.url,
      status: row.status,
      attempts: row.attempts,
      lastAttemptAt: row.last_attempt_at ?? undefined,
      lastStatusCode: row.last_status_code ?? undefined,
      lastError: row.last_error ?? undefined,
    }));
  }

  async spendByMinute(appId: string, sinceMinute: number): Promise<SpendMinute[]> {
    const rows = await this.db
      .selectFrom("spend_buckets")
      .select(["minute", sql<number>`sum(pending_gas + settled_gas)`.as("gas")])
      .where("app_id", "=", appId)
      .where("scope", "=", "app")
      .where("minute", ">=", sinceMinute)
      .groupBy("minute")
      .orderBy("minute")
      .execute();
    return rows.map((row) => ({ minute: Number(row.minute), gas: BigInt(row.gas) }));
  }

  /** The bundles with the requests each carries (a request names the bundle it was last sent in). */
  private async withRequests(rows: Selectable<BundlesTable>[]): Promise<BundleSummary[]> {
    if (rows.length === 0) return [];
    const carried = await this.db
      .selectFrom("transactions")
      .select(["id", "bundle_id"])
      .where(
        "bundle_id",
        "in",
        rows.map((row) => row.id),
      )
      .execute();
    return rows.map((row) => ({
      id: row.id,
      status: row.status,
      txHash: row.mined_tx_hash ?? StoredHashes.parse(JSON.parse(row.tx_hashes)).at(-1),
      blockNumber: row.block_number ?? undefined,
      createdAt: row.created_at,
      requestIds: carried.filter((tx) => tx.bundle_id === row.id).map((tx) => tx.id),
    }));
  }
}
