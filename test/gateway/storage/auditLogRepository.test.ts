import BetterSqlite3 from "better-sqlite3";
import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { Client } from "pg";
import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { tamperWith } from "../custody/auditBuilders";
import { auditLogRepositoryContract } from "./contract/auditLogRepositoryContract";

auditLogRepositoryContract("SQLite", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-audit-"));
  const file = path.join(dir, "idwallet.sqlite");
  return {
    location: file,
    tamper: async (statement) => tamperWith(file, (db: BetterSqlite3.Database) => db.exec(statement)),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
});

auditLogRepositoryContract("PostgreSQL", async () => {
  const url = await freshPostgresDatabase("audit");
  return {
    location: url,
    // The attacker as a superuser: in the replica role no ordinary trigger fires, the append-only ones included.
    tamper: async (statement) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        await client.query("set session_replication_role = replica");
        await client.query(statement);
      } finally {
        await client.end();
      }
    },
    remove: () => undefined,
  };
});

describe("storage: migration 014 (signature_audit)", () => {
  it("gives seq out once only (AUTOINCREMENT) and guards the table with the append-only triggers", async () => {
    const { db, close } = await openDatabase(":memory:");
    try {
      const schema = await sql<{
        sql: string;
      }>`select sql from sqlite_master where tbl_name = 'signature_audit'`.execute(db);
      const text = schema.rows.map((row) => row.sql).join("\n");
      expect(text).to.match(/"seq" integer primary key autoincrement/i);
      expect(text).to.include("signature_audit_no_update").and.include("signature_audit_no_delete");
    } finally {
      await close();
    }
  });
});
