import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from "kysely";

/**
 * Kysely's SQLite adapter says "no transactional DDL", so the migrator would run migrations outside a
 * transaction and a failure could leave a half-applied schema. SQLite does roll DDL back, so say so: all pending
 * migrations and their bookkeeping then commit or roll back together.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** SQLite's answer to a ROLLBACK outside a transaction. */
const NO_TRANSACTION = /no transaction is active/;

/**
 * A deferred `begin` that later writes fails at once with SQLITE_BUSY (busy_timeout does not apply to lock
 * upgrades in WAL mode). `begin immediate` takes the write lock up front, so concurrent writers (the gateway and
 * the admin CLI on one file) wait their turn instead.
 */
class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  /**
   * SQLite may have rolled the transaction back itself (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM:
   * https://www.sqlite.org/lang_transaction.html#response_to_errors_within_a_transaction); ROLLBACK then fails with
   * "no transaction is active", which would replace the error that says what went wrong.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    } catch (error) {
      if (!(error instanceof Error && NO_TRANSACTION.test(error.message))) throw error;
    }
  }
}

/** How many prepared statements a connection keeps (the service runs a few dozen distinct queries). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; preparing costs about as much as running a small query. The service's
 * queries are a small fixed set, so their prepared statements are kept and reused (SQLite re-prepares a
 * statement itself if the schema changes under it). Statements are never iterated (no streaming queries), so
 * a cached one is never busy when it is reused.
 */
export function withStatementCache(database: SqliteDatabase): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare: (sql) => {
      let statement = cache.get(sql);
      if (!statement) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        statement = database.prepare(sql);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/** better-sqlite3 dialect with atomic migrations and write-locking transactions. */
export class IdwalletSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new ImmediateTransactionSqliteDriver(this.config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
