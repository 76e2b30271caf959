import { expect } from "chai";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import {
  type AuditRow,
  auditKeyFrom,
  auditMarkTag,
  auditRowTag,
  verifyAuditChain,
  verifyAuditLog,
} from "../../../../gateway/custody/audit";
import { openDatabase, type Database } from "../../../../gateway/storage/database";
import { isPostgres } from "../../../../gateway/storage/sql/dialect/dialectOf";
import { sql } from "kysely";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import { auditEntries, auditEntry } from "../../custody/auditBuilders";
import { manualClock } from "../builders";

const ROOT = path.join(__dirname, "..", "..", "..", "..");
const T0 = new Date("2025-01-01T00:00:00.000Z");

const collect = async (rows: AsyncIterable<AuditRow>): Promise<AuditRow[]> => {
  const all: AuditRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
};

/** A new database for one test: where it is (a SQLite file, a PostgreSQL URL), and the attacker's way to edit it. */
export interface AuditLogStore {
  readonly location: string;
  /** Runs `statement` as an attacker with write access to the database does: around the append-only triggers. */
  tamper(statement: string): Promise<void>;
  /** Deletes what the store left behind. */
  remove(): void;
}

/** What every AuditLogRepository does, on a new database per test from `create` (see the settings suite). */
export function auditLogRepositoryContract(dialect: string, create: () => Promise<AuditLogStore>): void {
  describe(`storage: signature audit log repository (${dialect})`, () => {
    let store: AuditLogStore;
    let database: Database;
    let repos: Repositories;
    beforeEach(async () => {
      store = await create();
      database = await openDatabase(store.location);
      repos = createRepositories(database.db, manualClock().now);
    });
    afterEach(async () => {
      await database.close();
      store.remove();
    });

    it("appends under an audit key after plain rows: each new row tagged, the mark tagged over the last, read back as stored", async () => {
      const key = auditKeyFrom("5e".repeat(32));
      const plain = await repos.auditLog.append(auditEntries(2), T0);
      expect(await repos.auditLog.mark()).to.deep.equal({ seq: 2 });
      const keyed = await repos.auditLog.append(auditEntries(2, 3), T0, key);
      expect(keyed[0]!.prevHash).to.equal(plain[1]!.hash);
      for (const row of keyed) expect(row.hash).to.equal(auditRowTag(key, row.prevHash, row));
      expect(await repos.auditLog.mark()).to.deep.equal({ seq: 4, tag: auditMarkTag(key, 4, keyed[1]!.hash) });
      expect(await collect(repos.auditLog.rows())).to.deep.equal([...plain, ...keyed]);
      expect(await verifyAuditLog(repos.auditLog, key)).to.deep.equal({
        ok: true,
        count: 4,
        head: keyed[1]!.hash,
        keyedFrom: 3,
      });
    });

    it("appends after the newest row, seqs from 1, each linked to the one before, and reads back what it returned", async () => {
      const first = await repos.auditLog.append(auditEntries(3), T0);
      const second = await repos.auditLog.append(auditEntries(2, 4), new Date(T0.getTime() + 1000));
      expect([...first, ...second].map((row) => row.seq)).to.deep.equal([1, 2, 3, 4, 5]);
      expect(second[0]!.prevHash).to.equal(first[2]!.hash);
      expect(second[0]!.at).to.equal("2025-01-01T00:00:01.000Z");
      expect(await collect(repos.auditLog.rows())).to.deep.equal([...first, ...second]);
      expect(await repos.auditLog.head()).to.deep.equal(second[1]);
      expect(await verifyAuditChain(repos.auditLog.rows())).to.deep.equal({
        ok: true,
        count: 5,
        head: second[1]!.hash,
      });
      expect(await repos.auditLog.append([], T0)).to.deep.equal([]);
      expect((await repos.auditLog.head())?.seq).to.equal(5);
      expect(await repos.auditLog.highestSeq()).to.equal(5);
      expect(await verifyAuditLog(repos.auditLog)).to.deep.include({ ok: true, count: 5 });
    });

    it("stores an absent app, user or chain as NULL and an empty one as '', and reads each back as it was", async () => {
      const { appId: _a, userId: _u, chain: _c, ...bare } = auditEntry(1);
      const rows = await repos.auditLog.append([bare, { ...bare, appId: "", userId: "", chain: "" }], T0);
      const stored = await database.db.selectFrom("signature_audit").select(["app_id", "user_id", "chain"]).execute();
      expect(stored).to.deep.equal([
        { app_id: null, user_id: null, chain: null },
        { app_id: "", user_id: "", chain: "" },
      ]);
      const read = await collect(repos.auditLog.rows());
      expect(read).to.deep.equal(rows);
      expect(read[0]).to.not.have.any.keys("appId", "userId", "chain");
    });

    it("reads a page at a time, after a seq, up to the newest row when reading began", async () => {
      for (let i = 0; i < 5; i++) await repos.auditLog.append(auditEntries(500, i * 500 + 1), T0);
      expect((await collect(repos.auditLog.rows())).map((row) => row.seq)).to.deep.equal(
        Array.from({ length: 2500 }, (_, i) => i + 1),
      );
      const after = await collect(repos.auditLog.rows({ afterSeq: 1200 }));
      expect([after.length, after[0]?.seq, after.at(-1)?.seq]).to.deep.equal([1300, 1201, 2500]);
      const reading = repos.auditLog.rows()[Symbol.asyncIterator]();
      await reading.next();
      await repos.auditLog.append(auditEntries(10, 2501), T0);
      let count = 1;
      while (!(await reading.next()).done) count += 1;
      expect(count).to.equal(2500);
    });

    it("refuses to update or delete a row through the service's own connection: the log is append-only", async () => {
      await repos.auditLog.append(auditEntries(2), T0);
      const edit = database.db
        .updateTable("signature_audit")
        .set({ digest: auditEntry(9).digest })
        .where("seq", "=", 1);
      const remove = database.db.deleteFrom("signature_audit").where("seq", "=", 2);
      for (const query of [edit, remove]) {
        let thrown: unknown;
        await query.execute().catch((error: unknown) => (thrown = error));
        expect(thrown)
          .to.have.property("message")
          .that.match(/append-only/);
      }
      expect(await verifyAuditChain(repos.auditLog.rows())).to.deep.include({ ok: true, count: 2 });
    });

    it("an append that fails midway gives no seq out: the next one follows on, and the log verifies whole", async () => {
      await repos.auditLog.append(auditEntries(2), T0);
      // A row the database refuses (a trigger of the test's, on one digest): the batch's earlier rows roll back with it.
      const refused = auditEntry(4).digest;
      await (
        isPostgres(database.db)
          ? sql`create function refuse_one() returns trigger language plpgsql as $$
            begin if new.digest = ${sql.lit(refused)} then raise exception 'refused by the test'; end if; return new; end $$;
            create trigger refuse_one before insert on signature_audit for each row execute function refuse_one()`
          : sql`create trigger refuse_one before insert on signature_audit when new.digest = ${sql.lit(refused)}
            begin select raise(abort, 'refused by the test'); end`
      ).execute(database.db);
      const error = await repos.auditLog.append(auditEntries(3, 3), T0).catch((caught: unknown) => caught);
      expect(String(error)).to.match(/refused by the test/);
      expect(await repos.auditLog.highestSeq()).to.equal(2);
      const [next] = await repos.auditLog.append([auditEntry(9)], T0);
      expect(next!.seq).to.equal(3);
      expect(await verifyAuditLog(repos.auditLog)).to.deep.include({ ok: true, count: 3 });
    });

    it("the attacker deletes the newest row: its seq is never given out again, so the next append shows the gap", async () => {
      await repos.auditLog.append(auditEntries(5), T0);
      await store.tamper("delete from signature_audit where seq = 5");
      // The chain of the rows left holds; the log still remembers giving seq 5 out.
      expect(await verifyAuditChain(repos.auditLog.rows())).to.deep.include({ ok: true, count: 4 });
      expect(await repos.auditLog.highestSeq()).to.equal(5);
      expect(await verifyAuditLog(repos.auditLog)).to.deep.equal({
        ok: false,
        count: 4,
        brokenAt: 5,
        reason: "row 5 is missing from the end: deleted (seq 5 was given out)",
      });
      const [next] = await repos.auditLog.append([auditEntry(6)], T0);
      expect(next!.seq).to.equal(6);
      expect(await verifyAuditChain(repos.auditLog.rows())).to.deep.equal({
        ok: false,
        count: 4,
        brokenAt: 6,
        reason: "row 5 is missing here: deleted or moved",
      });
    });

    it("the attacker writes a row no signer could have: reading it fails, naming its seq, after the rows before it", async () => {
      await repos.auditLog.append(auditEntries(4), T0);
      await store.tamper("update signature_audit set purpose = 'bribe', digest = 'all of it' where seq = 3");
      const verdict = await verifyAuditChain(repos.auditLog.rows());
      expect(verdict).to.deep.include({ ok: false, count: 2, brokenAt: 3 });
      expect(verdict)
        .to.have.property("reason")
        .that.match(/^the row is malformed \(purpose: .*; digest: /);
      let thrown: unknown;
      await collect(repos.auditLog.rows({ afterSeq: 2 })).catch((error: unknown) => (thrown = error));
      expect(thrown).to.have.property("name", "MalformedAuditRowError");
      expect(thrown).to.have.property("seq", 3);
    });

    it("two processes appending to one database at once never fork the chain", async function () {
      this.timeout(120_000);
      await database.close();
      const batches = 100;
      const batchSize = 5;
      const start = (label: string): ChildProcessWithoutNullStreams =>
        spawn(
          process.execPath,
          [
            "-r",
            "ts-node/register/transpile-only",
            "test/helpers/auditAppender.ts",
            store.location,
            label,
            `${batches}`,
            `${batchSize}`,
          ],
          { cwd: ROOT },
        );
      const children = [start("process-a"), start("process-b")];
      const exited = children.map((child) => new Promise((resolve) => child.once("exit", resolve)));
      const lines = children.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
      const errors = children.map((child) => {
        const chunks: string[] = [];
        child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
        return chunks;
      });
      const nextLine = async (i: number): Promise<string> => {
        const line = await lines[i]!.next();
        if (line.done) throw new Error(`appender ${i} ended: ${errors[i]!.join("")}`);
        return line.value;
      };
      expect(await Promise.all([nextLine(0), nextLine(1)])).to.deep.equal(["ready", "ready"]);
      for (const child of children) child.stdin.write("go\n");
      expect(await Promise.all([nextLine(0), nextLine(1)])).to.deep.equal(["appended 500", "appended 500"]);
      expect(await Promise.all(exited)).to.deep.equal([0, 0]);

      database = await openDatabase(store.location);
      repos = createRepositories(database.db, manualClock().now);
      const rows = await collect(repos.auditLog.rows());
      expect(await verifyAuditChain(rows)).to.deep.include({ ok: true, count: 2 * batches * batchSize });
      // The two really did append at the same time: their batches alternate along the chain (one after the other
      // would switch once; a loaded machine may let one run ahead for a while, so any interleaving counts).
      const switches = rows.filter((row, i) => i > 0 && row.appId !== rows[i - 1]!.appId).length;
      expect(switches).to.be.greaterThan(1);
    });
  });
}
