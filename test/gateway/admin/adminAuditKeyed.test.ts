import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type AuditLog,
  auditKeyFrom,
  auditRowHash,
  checkAuditLogHead,
  createAuditLog,
} from "../../../gateway/custody/audit";
import { type Database, openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import type { AuditLogRepository } from "../../../gateway/custody/audit/auditLogRepository";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT } from "../../../scripts/admin/commands";
import { auditEntries, auditEntry, tamperWith } from "../custody/auditBuilders";
import { manualClock } from "../storage/builders";

const KEY = "5e".repeat(32);
const OTHER_KEY = "a7".repeat(32);

describe("admin CLI: audit verify of a log chained under AUDIT_LOG_KEY, against the thief with the database file", () => {
  let dir: string;
  let file: string;
  let database: Database;
  let repository: AuditLogRepository;
  /** The log as the service that holds the key appends to it, still running. */
  let log: AuditLog;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-audit-keyed-"));
    file = path.join(dir, "idwallet.sqlite");
    database = await openDatabase(file);
    const clock = manualClock();
    repository = createRepositories(database.db, clock.now).auditLog;
    // Three rows written before the key was set, then three by the service started with it.
    const before = createAuditLog(repository, clock.now);
    for (const entry of auditEntries(3)) await before.record(entry);
    log = createAuditLog(repository, clock.now, auditKeyFrom(KEY));
    await Promise.all(auditEntries(2, 4).map((entry) => log.record(entry)));
    await log.record(auditEntry(6));
  });
  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the admin CLI on the file, as the operator does, with `env` (AUDIT_LOG_KEY). */
  async function verify(env: NodeJS.ProcessEnv = { AUDIT_LOG_KEY: KEY }) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCli(["--db", file, "audit", "verify"], {
      env,
      output: { out: (text) => out.push(text), err: (text) => err.push(text) },
      clock: () => new Date(),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  /**
   * The thief re-chains rows `from` to `through` with the public plain scheme, app `appId` on row `edited` (which was
   * that row's part in a signature for another app).
   */
  const rechain = (from: number, edited: number, appId: string, through = 6) =>
    tamperWith(file, (db) => {
      type Raw = Record<string, string | number | null>;
      const rows = db
        .prepare("select * from signature_audit where seq >= ? and seq <= ? order by seq")
        .all(from, through) as Raw[];
      let prevHash = (db.prepare("select hash from signature_audit where seq = ?").get(from - 1) as Raw).hash as string;
      for (const raw of rows) {
        const row = {
          seq: raw.seq as number,
          at: raw.at as string,
          purpose: raw.purpose as "eip1271",
          signer: raw.signer as string,
          digest: raw.digest as string,
          signature: raw.signature as string,
          appId: raw.seq === edited ? appId : (raw.app_id as string),
          userId: raw.user_id as string,
          chain: raw.chain as string,
          ...(raw.covers !== null && { covers: JSON.parse(raw.covers as string) as string[] }),
        };
        const hash = auditRowHash(prevHash, row);
        db.prepare("update signature_audit set app_id = ?, prev_hash = ?, hash = ? where seq = ?").run(
          row.appId,
          prevHash,
          hash,
          row.seq,
        );
        prevHash = hash;
      }
    });
  /** The thief deletes the rows after `seq` and winds the mark back to it (its tag: `tag`, or left as it was). */
  const cutAfter = (seq: number, tag?: string | null) =>
    tamperWith(file, (db) => {
      db.exec("drop trigger if exists signature_audit_mark_no_lowering");
      db.prepare("delete from signature_audit where seq > ?").run(seq);
      db.prepare("update signature_audit_mark set seq = ?").run(seq);
      if (tag !== undefined) db.prepare("update signature_audit_mark set tag = ?").run(tag);
    });

  it("verify with the key passes, saying from which seq the log is keyed; without it, it names the key it needs", async () => {
    const keyed = await verify();
    expect([keyed.code, keyed.err]).to.deep.equal([EXIT.ok, ""]);
    expect(keyed.out)
      .to.include("verifies: 6 row(s)")
      .and.include("Keyed from seq 4 on: the rows before it carry plain SHA-256 hashes");
    const keyless = await verify({});
    expect(keyless.code).to.equal(EXIT.failed);
    expect(keyless.err).to.include("verify it with AUDIT_LOG_KEY");
    const wrongKey = await verify({ AUDIT_LOG_KEY: OTHER_KEY });
    expect(wrongKey.code).to.equal(EXIT.failed);
    expect(wrongKey.err).to.match(/broken at seq 4: the row does not hash to its hash/);
  });

  it("a thief with database credentials re-chains edited rows: audit verify names the first edited row", async () => {
    rechain(5, 5, "app_thief");
    const { code, err } = await verify();
    expect(code).to.equal(EXIT.failed);
    expect(err).to.include(
      "Error: the signature audit log is broken at seq 5: the row carries a plain hash after the keyed rows from 4",
    );
  });

  it("a thief with database credentials re-chains every keyed row: audit verify with the key says none is keyed", async () => {
    rechain(4, 4, "app_thief");
    tamperWith(file, (db) => db.prepare("update signature_audit_mark set tag = null").run());
    const { code, err } = await verify();
    expect(code).to.equal(EXIT.failed);
    expect(err).to.include("no row is tagged under AUDIT_LOG_KEY");
  });

  it("a thief with database credentials edits a row from before the key: audit verify names the first keyed row", async () => {
    // The rows before the key carry no tag: the first keyed row's, over the hash of the row before it, holds them.
    rechain(2, 2, "app_thief", 3);
    expect((await verify()).err).to.match(/broken at seq 4: its prevHash is not row 3's hash/);
    tamperWith(file, (db) => {
      const { hash } = db.prepare("select hash from signature_audit where seq = 3").get() as { hash: string };
      db.prepare("update signature_audit set prev_hash = ? where seq = 4").run(hash);
    });
    expect((await verify()).err).to.match(/broken at seq 4: the row does not hash to its hash: it was changed/);
  });

  it("a thief with database credentials deletes the last rows: audit verify names where the log was cut", async () => {
    cutAfter(4);
    const { code, err } = await verify();
    expect(code).to.equal(EXIT.failed);
    expect(err).to.include(
      "Error: the signature audit log is broken at seq 5: the mark of the last append (seq 4) does not carry its tag " +
        "under AUDIT_LOG_KEY: rows after seq 4 were deleted and the mark wound back",
    );
    cutAfter(4, null);
    expect((await verify()).err).to.include("broken at seq 5: the mark of the last append (seq 4)");
  });

  it("a thief with database credentials deletes the last rows and puts back a mark he saw: the service's next row leaves the gap audit verify names", async () => {
    const saved = await repository.mark();
    await log.record(auditEntry(7));
    await log.record(auditEntry(8));
    cutAfter(saved.seq, saved.tag);
    // The database alone holds nothing to tell this log from the one he saw: only a head kept outside it would.
    expect((await verify()).code).to.equal(EXIT.ok);
    await log.record(auditEntry(9));
    const { code, err } = await verify();
    expect(code).to.equal(EXIT.failed);
    expect(err).to.include("broken at seq 9: rows 7 to 8 are missing here: deleted or moved");
  });

  it("the service does not start on a keyed log without its key, or with another", async () => {
    expect(await checkAuditLogHead(repository, auditKeyFrom(KEY))).to.equal("keyed");
    const refused = (key?: string) =>
      checkAuditLogHead(repository, key === undefined ? undefined : auditKeyFrom(key)).then(
        () => "started",
        (error: Error) => error.message,
      );
    expect(await refused()).to.include("start with its AUDIT_LOG_KEY");
    expect(await refused(OTHER_KEY)).to.include("is neither tagged under AUDIT_LOG_KEY nor a plain row");
  });
});
