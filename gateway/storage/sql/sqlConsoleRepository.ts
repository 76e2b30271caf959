import type { Kysely } from "kysely";
import type { DatabaseSchema } from "../schema";
import type { ConsoleRepository, ConsoleSession, OperatorActionRecord } from "../../console/consoleRepository";

/** ConsoleRepository over SQLite and PostgreSQL: links and sessions by hash, and the operators' actions. */
export class SqlConsoleRepository implements ConsoleRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  async createLink(link: { tokenHash: string; label: string; expiresAt: Date }): Promise<void> {
    await this.db
      .insertInto("console_links")
      .values({
        token_hash: link.tokenHash,
        label: link.label,
        created_at: this.clock().toISOString(),
        expires_at: link.expiresAt.toISOString(),
        used_at: null,
      })
      .execute();
  }

  async useLink(tokenHash: string, now: Date): Promise<string | undefined> {
    // One statement: of two instances opening the same link at once, one finds it unused.
    const row = await this.db
      .updateTable("console_links")
      .set({ used_at: now.toISOString() })
      .where("token_hash", "=", tokenHash)
      .where("used_at", "is", null)
      .where("expires_at", ">", now.toISOString())
      .returning("label")
      .executeTakeFirst();
    return row?.label;
  }

  async openSession(session: { idHash: string; label: string; expiresAt: Date }): Promise<void> {
    const now = this.clock().toISOString();
    // Sessions long over are dropped as new ones open: the table holds the open ones and a few more.
    await this.db.deleteFrom("console_sessions").where("expires_at", "<", now).execute();
    await this.db
      .insertInto("console_sessions")
      .values({
        id_hash: session.idHash,
        label: session.label,
        created_at: now,
        expires_at: session.expiresAt.toISOString(),
      })
      .execute();
  }

  async findSession(idHash: string, now: Date): Promise<ConsoleSession | undefined> {
    const row = await this.db
      .selectFrom("console_sessions")
      .select(["label", "expires_at"])
      .where("id_hash", "=", idHash)
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirst();
    return row && { label: row.label, expiresAt: row.expires_at };
  }

  async closeSession(idHash: string): Promise<void> {
    await this.db.deleteFrom("console_sessions").where("id_hash", "=", idHash).execute();
  }

  async closeAllSessions(now: Date): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const closed = await trx
        .deleteFrom("console_sessions")
        .where("expires_at", ">", now.toISOString())
        .executeTakeFirst();
      await trx.deleteFrom("console_sessions").execute();
      await trx.deleteFrom("console_links").where("used_at", "is", null).execute();
      return Number(closed.numDeletedRows);
    });
  }

  async recordAction(entry: OperatorActionRecord): Promise<void> {
    await this.db
      .insertInto("console_actions")
      .values({
        at: entry.at,
        who: entry.who,
        action: entry.action,
        target: entry.target,
        detail: entry.detail ?? null,
        result: entry.result,
      })
      .execute();
  }

  async recentActions(limit: number, action?: string): Promise<OperatorActionRecord[]> {
    let query = this.db.selectFrom("console_actions").selectAll().orderBy("seq", "desc").limit(limit);
    if (action !== undefined) query = query.where("action", "=", action);
    const rows = await query.execute();
    return rows.map((row) => ({
      at: row.at,
      who: row.who,
      action: row.action,
      target: row.target,
      detail: row.detail ?? undefined,
      result: row.result,
    }));
  }
}
