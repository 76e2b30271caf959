import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
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

/**
 * A deferred `begin` that later writes fails at once with SQLITE_BUSY (busy_timeout does not apply to lock
 * upgrades in WAL mode). `begin immediate` takes the write lock up front, so concurrent writers (the gateway and
 * the admin CLI on one file) wait their turn instead.
 */
class ImmediateTransactionSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
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
