import { expect } from "chai";
import { sql } from "kysely";
import { Client } from "pg";
import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { concurrentAcceptContract } from "./contract/concurrentAcceptContract";
import { concurrentAdminContract } from "./contract/concurrentAdminContract";
import { concurrentOtpContract } from "./contract/concurrentOtpContract";

// PostgreSQL only: there two instances write at once. SQLite's `begin immediate` serializes every write transaction,
// across processes too; two connections in one process cannot show it, since better-sqlite3 waits for the write lock
// synchronously, blocking the event loop the other connection's open transaction needs to finish.
concurrentAcceptContract("PostgreSQL", () => freshPostgresDatabase("two_instances"));
concurrentOtpContract("PostgreSQL", () => freshPostgresDatabase("two_instances_otp"));
concurrentAdminContract("PostgreSQL", () => freshPostgresDatabase("two_instances_admin"));

describe("storage: PostgreSQL transactions read committed", () => {
  it("even on a database whose default is repeatable read: what waited for a lock reads what its holder committed", async () => {
    const url = await freshPostgresDatabase("isolation");
    const admin = new Client({ connectionString: url });
    await admin.connect();
    const name = (await admin.query<{ d: string }>("select current_database() as d")).rows[0]!.d;
    await admin.query(`alter database ${name} set default_transaction_isolation = 'repeatable read'`);
    await admin.end();
    const database = await openDatabase(url);
    try {
      const level = await database.db
        .transaction()
        .execute(
          async (trx) =>
            (await sql<{ l: string }>`select current_setting('transaction_isolation') as l`.execute(trx)).rows[0]!.l,
        );
      expect(level).to.equal("read committed");
    } finally {
      await database.close();
    }
  });
});
