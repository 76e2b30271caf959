/**
 * A PostgreSQL database's cost per request, from the server's own count (pg_stat_statements, loaded by the bench's
 * server): statements run (each a round trip from the service: node-postgres waits for one before sending the next),
 * the server's time executing them, and the time spent waiting in the app's acceptance lock
 * (`pg_advisory_xact_lock`, which one app's acceptances take in turn across instances).
 */
import { Client } from "pg";

/** What `pg_stat_statements` must be loaded with for {@link StatementCounter} to read it. */
export const STATEMENT_STATS_SETTINGS = { shared_preload_libraries: "pg_stat_statements" } as const;

/** The database's statements over a window. */
export interface StatementCount {
  readonly statements: number;
  /** The server's time executing them, ms. */
  readonly executionMs: number;
  /** Of which waiting for (and holding nothing but) the app's acceptance lock, ms. */
  readonly lockWaitMs: number;
}

/** Counts the statements of one database between `reset()` and `read()`. */
export class StatementCounter {
  private constructor(private readonly client: Client) {}

  /** Connects to `url` and makes the statistics view readable there. */
  static async open(url: string): Promise<StatementCounter> {
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query("create extension if not exists pg_stat_statements");
    return new StatementCounter(client);
  }

  /** Starts a window: the server's counts back to zero. */
  async reset(): Promise<void> {
    await this.client.query("select pg_stat_statements_reset()");
  }

  /** This database's statements since reset(), but for the counter's own. */
  async read(): Promise<StatementCount> {
    const { rows } = await this.client.query<{ calls: string; exec: number; lock: number }>(
      `select coalesce(sum(calls), 0) as calls, coalesce(sum(total_exec_time), 0) as exec,
         coalesce(sum(total_exec_time) filter (where query like '%pg_advisory_xact_lock%'), 0) as lock
       from pg_stat_statements
       where dbid = (select oid from pg_database where datname = current_database())
         and query not like '%pg_stat_statements%'`,
    );
    const row = rows[0]!;
    return { statements: Number(row.calls), executionMs: Number(row.exec), lockWaitMs: Number(row.lock) };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
