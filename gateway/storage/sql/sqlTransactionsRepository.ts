import { type Kysely, type Selectable, type Transaction, sql } from "kysely";
import type { DatabaseSchema, TransactionsTable } from "../schema";
import type { SpendLimit } from "../../transactions/spendLimits";
import type { Fence } from "../../leases/lease";
import { acceptLockKeys, earlierRequest, insertRequest } from "./acceptedRequests";
import { checkFence } from "./sqlWorkerLeasesRepository";
import type { GroupCommit } from "./groupCommit";
import { type BucketAddition, addToBucketsTogether } from "./spendBuckets";
import { SqlWebhookOutbox } from "./sqlWebhookOutbox";
import type { OutboxSignal } from "./outboxSignal";
import type { WebhookOutbox } from "../../webhooks/webhookOutbox";
import { appSpendSince } from "./spendUsage";
import { type SettlementEvents, applyOutcome } from "./requestSettlement";
import { listWalletRequests } from "./requestListing";
import { countByStatus, revertedGasByChain } from "./queueGauges";
import { newBundleRow, serializeUserOp, toBundle, toRecord } from "./transactionRows";
import { type Bundle, type NewBundle } from "../../transactions/bundle";
import { type BuiltOp, type BuiltUserOp } from "../../transactions/builtOp";
import { type NewTx, type TxError, type TxRecord, type TxStatus } from "../../transactions/txRecord";
import { type CancelOutcome, type TransactionsRepository } from "../../transactions/transactionsRepository";
import { cancellable, failIfCancelled, replaceBundleRow } from "./requestChanges";
import { type TxOutcome } from "../../transactions/txOutcome";

/**
 * What becomes of each change of a request's state, in its transaction (the outbox, issue 21): the webhooks' step
 * that records the event the change is (webhooks/requestEvents.ts), handed the request as the change left it and the
 * transaction's outbox; and the signal told once a transaction that recorded an event commits.
 */
export interface ChangeEvents {
  readonly record: (outbox: WebhookOutbox, changed: TxRecord, now: Date) => Promise<void>;
  readonly signal: OutboxSignal;
}

/** TransactionsRepository over SQLite and PostgreSQL; multi-row changes run in one transaction. */
export class SqlTransactionsRepository implements TransactionsRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
    /** The group commit accepted requests are stored through. */
    private readonly commits: GroupCommit,
    private readonly events: ChangeEvents,
    /** The worker lease every write of the worker checks first, if it runs under one. */
    private readonly fence?: Fence,
  ) {}

  fenced(fence: Fence): TransactionsRepository {
    return new SqlTransactionsRepository(this.db, this.clock, this.commits, this.events, fence);
  }

  /**
   * A write of the worker, in one transaction that first checks its lease (LeaseLostError, nothing stored), with the
   * outbox its state changes record their events in; the delivery loop is told once an event is committed.
   */
  private async write<T>(work: (trx: Transaction<DatabaseSchema>, outbox: SqlWebhookOutbox) => Promise<T>): Promise<T> {
    let outbox: SqlWebhookOutbox | undefined;
    const result = await this.db.transaction().execute(async (trx) => {
      if (this.fence) await checkFence(trx, this.fence);
      outbox = new SqlWebhookOutbox(trx);
      return work(trx, outbox);
    });
    if (outbox?.recorded) this.events.signal.committed();
    return result;
  }

  /**
   * Stores the request in the next group commit (shared with Safe creations), or answers the app's earlier request
   * with the same Idempotency-Key; a spend limit it does not fit refuses it alone.
   */
  create(tx: NewTx, limits: readonly SpendLimit[] = []): Promise<{ record: TxRecord; created: boolean }> {
    return this.commits.run(acceptLockKeys(tx), async (trx) => {
      const earlier =
        tx.idempotencyKey === undefined ? undefined : await earlierRequest(trx, tx.appId, tx.idempotencyKey);
      // A retry of an accepted request is answered, never refused: it reserved its gas the first time.
      if (earlier) return { record: earlier, created: false };
      return { record: await insertRequest(trx, tx, limits, this.clock()), created: true };
    });
  }

  async find(id: string): Promise<TxRecord | undefined> {
    const row = await this.db.selectFrom("transactions").selectAll().where("id", "=", id).executeTakeFirst();
    return row && toRecord(row);
  }

  readonly listWalletRequests: TransactionsRepository["listWalletRequests"] = (query) =>
    listWalletRequests(this.db, query);

  async due(chain: string, now: Date, limit: number, exceptSenders?: ReadonlySet<string>): Promise<TxRecord[]> {
    // Left out in the query, so only the rows taken are read and parsed.
    const except = exceptSenders && exceptSenders.size > 0 ? [...exceptSenders] : undefined;
    // The oldest queued request of each wallet, if it is due: one wallet's backlog cannot crowd the others out of a
    // bundle, and its requests run in order (a newer one waits while an older one waits for its retry). None of
    // a wallet with a request in flight, which the next one must follow (and be simulated after). The queue is read
    // oldest first and each candidate's wallet checked by seeks of transactions_wallet_status: it reads about `limit`
    // rows unless one wallet's backlog is older than the others' (each of those rows is one seek).
    const result = await sql<Selectable<TransactionsTable>>`
      select t.* from transactions t
      where t.chain = ${chain} and t.status = 'queued' and t.next_attempt_at <= ${now.toISOString()}
        ${except ? sql`and t.sender not in (${sql.join(except)})` : sql``}
        and not exists (
          select 1 from transactions o
          where o.chain = t.chain and o.sender = t.sender and o.status = 'queued'
            and (o.created_at < t.created_at or (o.created_at = t.created_at and o.id < t.id)))
        and not exists (
          select 1 from transactions s where s.chain = t.chain and s.sender = t.sender and s.status = 'submitted')
      order by t.created_at, t.id
      limit ${limit}`.execute(this.db);
    return result.rows.map(toRecord);
  }

  async submitted(chain: string): Promise<TxRecord[]> {
    const rows = await this.db
      .selectFrom("transactions")
      .selectAll()
      .where("chain", "=", chain)
      .where("status", "=", "submitted")
      .orderBy("created_at")
      .execute();
    return rows.map(toRecord);
  }

  async built(chain: string): Promise<TxRecord[]> {
    const rows = await this.db
      .selectFrom("transactions")
      .selectAll()
      .where("chain", "=", chain)
      .where("status", "in", ["queued", "submitted"])
      .where((eb) => eb.or([eb("user_op", "is not", null), eb("safe_tx_hash", "is not", null)]))
      .orderBy("created_at")
      .execute();
    return rows.map(toRecord);
  }

  async markSubmitted(op: BuiltUserOp): Promise<void> {
    await this.write((trx, outbox) => this.submitOp(trx, outbox, op, null));
  }

  async recordBundle(bundle: NewBundle, ops: readonly BuiltOp[]): Promise<Bundle> {
    const row = newBundleRow(bundle, this.clock().toISOString());
    await this.write(async (trx, outbox) => {
      await trx.insertInto("bundles").values(row).execute();
      for (const op of ops) await this.submitOp(trx, outbox, op, row.id);
    });
    return toBundle(row);
  }

  async pendingBundles(chain: string): Promise<Bundle[]> {
    const rows = await this.db
      .selectFrom("bundles")
      .selectAll()
      .where("chain", "=", chain)
      .where("status", "=", "pending")
      .orderBy("nonce")
      .execute();
    return rows.map(toBundle);
  }

  async bundleOps(bundleId: string): Promise<TxRecord[]> {
    const rows = await this.db.selectFrom("transactions").selectAll().where("bundle_id", "=", bundleId).execute();
    return rows.map(toRecord);
  }

  async replaceBundleTx(
    bundleId: string,
    replacement: { txHash: string; rawTx: string; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<Bundle> {
    return this.write((trx) => replaceBundleRow(trx, bundleId, replacement, this.clock()));
  }

  async settleBundle(
    bundleId: string,
    result: { status: "mined" | "dropped"; minedTxHash?: string; blockNumber?: number; revertedGas?: bigint },
    outcomes: ReadonlyMap<string, TxOutcome>,
  ): Promise<void> {
    await this.write(async (trx, outbox) => {
      await trx
        .updateTable("bundles")
        .set({
          status: result.status,
          mined_tx_hash: result.minedTxHash ?? null,
          block_number: result.blockNumber ?? null,
          reverted_gas: result.revertedGas === undefined ? null : Number(result.revertedGas),
          updated_at: this.clock().toISOString(),
        })
        .where("id", "=", bundleId)
        .execute();
      // The buckets once the bundle's requests are settled: one update per bucket, not two per request.
      const buckets: BucketAddition[] = [];
      for (const [txId, outcome] of outcomes)
        buckets.push(...(await applyOutcome(trx, this.settlementEvents(outbox), txId, outcome)));
      await addToBucketsTogether(trx, buckets);
    });
  }

  async settle(txId: string, outcome: TxOutcome): Promise<void> {
    await this.write(async (trx, outbox) =>
      addToBucketsTogether(trx, await applyOutcome(trx, this.settlementEvents(outbox), txId, outcome)),
    );
  }

  async cancelQueued(txId: string, error: TxError): Promise<CancelOutcome> {
    return this.write(async (trx, outbox) => {
      const found = await cancellable(trx, txId);
      if (found === "cancellable") {
        const failed = { status: "failed", error } as const;
        await addToBucketsTogether(trx, await applyOutcome(trx, this.settlementEvents(outbox), txId, failed));
      }
      return found === "cancellable" ? "cancelled" : found;
    });
  }

  async spendSince(since: ReadonlyMap<string, Date>): Promise<{ appId: string; chain: string; gas: bigint }[]> {
    return this.db.transaction().execute((trx) => appSpendSince(trx, since));
  }

  revertedGasByChain(): Promise<{ chain: string; gas: bigint }[]> {
    return revertedGasByChain(this.db);
  }

  countByStatus(): Promise<{ chain: string; status: TxStatus; count: number }[]> {
    return countByStatus(this.db);
  }

  /** A settlement's events: into `outbox`, through the webhook rules, now. */
  private settlementEvents(outbox: WebhookOutbox): SettlementEvents {
    return { outbox, record: this.events.record, now: this.clock() };
  }

  private async submitOp(
    trx: Transaction<DatabaseSchema>,
    outbox: WebhookOutbox,
    op: BuiltOp,
    bundleId: string | null,
  ): Promise<void> {
    const changed = await trx
      .updateTable("transactions")
      .set((eb) => ({
        status: "submitted",
        ...("userOp" in op
          ? { user_op: serializeUserOp(op.userOp), user_op_hash: op.userOpHash }
          : {
              safe_tx_hash: op.safeTx?.hash ?? null,
              safe_nonce: op.safeTx?.nonce ?? null,
              ...(op.error ? { error_code: op.error.code, error_message: op.error.message } : {}),
            }),
        bundle_id: bundleId,
        attempts: eb("attempts", "+", 1),
        updated_at: this.clock().toISOString(),
      }))
      .where("id", "=", op.txId)
      // A final request stays final: one an operator cancelled while this build was under way is not sent.
      .where("status", "not in", ["included", "failed"])
      .returningAll()
      .executeTakeFirst();
    // A build of a request an operator cancelled is not recorded, so not sent: the whole recording rolls back.
    if (!changed) return failIfCancelled(trx, op.txId);
    // Webhooks: the event goes in with the state change (the outbox), or not at all.
    await this.events.record(outbox, toRecord(changed), this.clock());
  }
}
