import { type Kysely, type Transaction, sql } from "kysely";
import { SafeExistsError } from "../safesRepository";
import type { DatabaseSchema } from "../schema";
import { SpendLimitExceededError } from "../../policy/spendLimits";

/** One write of a group: what it stores, in the group's transaction. */
export type GroupWrite<T> = (trx: Transaction<DatabaseSchema>) => Promise<T>;

type Pending = { write: GroupWrite<unknown>; resolve: (value: unknown) => void; reject: (error: unknown) => void };
type Outcome = { readonly value: unknown } | { readonly refused: unknown };

/** What a write refuses its own request with (nothing of it stored): only its part of the group is undone. */
const isRefusal = (error: unknown): boolean =>
  error instanceof SpendLimitExceededError || error instanceof SafeExistsError;

/**
 * Group commit of accepted requests, wallet and Safe alike: the writes that arrive in one turn of the event loop run in
 * one transaction, so they share one fsync (synchronous FULL) instead of paying one each; every caller still gets its
 * answer only after the commit (design §1.4). A write refused by its own rules (a spend limit, a Safe already
 * recorded) is undone alone, under its savepoint, while the others still share the commit; should the shared
 * transaction fail otherwise, each write is tried alone, so one bad request cannot fail the others.
 */
export class GroupCommit {
  /** Writes waiting for the next commit. */
  private pending: Pending[] = [];

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  /** Runs `write` in the next group's transaction; resolves once that committed. */
  run<T>(write: GroupWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (this.pending.length === 1) setImmediate(() => void this.commitPending());
    });
  }

  private async commitPending(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const outcomes = await this.db.transaction().execute(async (trx) => {
        const out: Outcome[] = [];
        for (const item of batch) out.push(await this.runOrRefuse(trx, item.write));
        return out;
      });
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if ("refused" in outcome) item.reject(outcome.refused);
        else item.resolve(outcome.value);
      });
    } catch {
      for (const item of batch) await this.db.transaction().execute(item.write).then(item.resolve, item.reject);
    }
  }

  /** `write` under a savepoint: a refusal undoes only this write's part of the group. */
  private async runOrRefuse(trx: Transaction<DatabaseSchema>, write: GroupWrite<unknown>): Promise<Outcome> {
    await sql`savepoint batch_item`.execute(trx);
    try {
      const value = await write(trx);
      await sql`release batch_item`.execute(trx);
      return { value };
    } catch (error) {
      if (!isRefusal(error)) throw error;
      await sql`rollback to batch_item`.execute(trx);
      await sql`release batch_item`.execute(trx);
      return { refused: error };
    }
  }
}
