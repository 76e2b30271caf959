import type BetterSqlite3 from "better-sqlite3";
import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type AuditRow, auditRowHash, createAuditLog } from "../../../gateway/custody/audit";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { parseAdminArgs, USAGE } from "../../../scripts/admin/args";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT, type AdminOutput } from "../../../scripts/admin/commands";
import { auditEntries, auditEntry, tamperWith } from "../custody/auditBuilders";
import { manualClock } from "../storage/builders";

function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

/** Row `seq` as the attacker's own connection reads it, in the log's terms. */
function rawRow(db: BetterSqlite3.Database, seq: number): AuditRow {
  const raw = db.prepare("select * from signature_audit where seq = ?").get(seq) as Record<string, string | null>;
  const { app_id, user_id, chain, prev_hash, ...rest } = raw;
  return {
    ...(rest as unknown as Omit<AuditRow, "appId" | "userId" | "chain" | "prevHash">),
    ...(app_id !== null && { appId: app_id }),
    ...(user_id !== null && { userId: user_id }),
    ...(chain !== null && { chain }),
    prevHash: prev_hash!,
  };
}

describe("admin CLI: audit arguments", () => {
  const parse = (line: string) => parseAdminArgs(line.split(" "));

  it("parses audit verify and audit export [--after <seq>], and lists them in the usage", () => {
    expect(parse("audit verify")).to.deep.include({ command: { kind: "audit", command: { kind: "verify" } } });
    expect(parse("audit export")).to.deep.include({
      command: { kind: "audit", command: { kind: "export", afterSeq: undefined } },
    });
    expect(parse("audit export --after 12")).to.deep.include({
      command: { kind: "audit", command: { kind: "export", afterSeq: 12 } },
    });
    expect(USAGE).to.include("audit verify").and.include("audit export [--after <seq>]");
  });

  const bad: ReadonlyArray<readonly [string, RegExp]> = [
    ["audit", /"audit" needs verify or export/],
    ["audit frob", /unknown command "audit frob"/],
    ["audit verify now", /takes 0 argument/],
    ["audit verify --after 3", /--after applies only to audit export/],
    ["apps list --after 3", /--after applies only to audit export/],
    ["audit export --after=-1", /--after must be a row's seq/],
    ["audit export --after 1.5", /--after must be a row's seq/],
    ["audit export --after ten", /--after must be a row's seq/],
  ];
  for (const [line, error] of bad) {
    it(`refuses "${line}"`, () =>
      expect(parse(line)).to.deep.include({ ok: false }).and.have.property("error").match(error));
  }
});

describe("admin CLI: audit verify and export, against the attacker who edits the database file", () => {
  let dir: string;
  let file: string;
  let recordedHead: { seq: number; hash: string };
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-audit-cli-"));
    file = path.join(dir, "idwallet.sqlite");
    // Six signatures logged through the log as a signer logs them: three in one turn, then three one by one.
    const database = await openDatabase(file);
    try {
      const clock = manualClock();
      const log = createAuditLog(createRepositories(database.db, clock.now).auditLog, clock.now);
      await Promise.all(auditEntries(3).map((entry) => log.record(entry)));
      for (const entry of auditEntries(3, 4)) {
        clock.advance(1000);
        await log.record(entry);
      }
    } finally {
      await database.close();
    }
    const verified = await cli("audit", "verify");
    expect(verified.code).to.equal(EXIT.ok);
    const [, seq, hash] = /Head: seq (\d+) hash (0x[0-9a-f]{64})/.exec(verified.out)!;
    recordedHead = { seq: Number(seq), hash: hash! };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the admin CLI on the file, as the operator does. */
  async function cli(...argv: string[]) {
    const output = captureOutput();
    const code = await runAdminCli(["--db", file, ...argv], { env: {}, output, clock: () => new Date() });
    return { code, out: output.stdout.join("\n"), err: output.stderr.join("\n") };
  }

  /** The rows `audit export` prints. */
  async function exported(...argv: string[]): Promise<AuditRow[]> {
    const { code, out } = await cli("audit", "export", ...argv);
    expect(code).to.equal(EXIT.ok);
    return out === "" ? [] : out.split("\n").map((line) => JSON.parse(line) as AuditRow);
  }

  it("verify passes the log as written, printing its rows and the head hash to keep elsewhere", async () => {
    const { code, out, err } = await cli("audit", "verify");
    expect([code, err]).to.deep.equal([EXIT.ok, ""]);
    expect(out).to.include("verifies: 6 row(s)").and.include("Keep this head outside the database");
    const rows = await exported();
    expect(recordedHead).to.deep.equal({ seq: 6, hash: rows[5]!.hash });
  });

  it("(a) one row's digest changed: verify exits 1 naming exactly that row", async () => {
    tamperWith(file, (db) =>
      db.prepare("update signature_audit set digest = ? where seq = 3").run(auditEntry(99).digest),
    );
    const { code, out, err } = await cli("audit", "verify");
    expect([code, out]).to.deep.equal([EXIT.failed, ""]);
    expect(err).to.equal(
      "Error: the signature audit log is broken at seq 3: the row does not hash to its hash: it was changed " +
        "(the 2 row(s) before it verify)",
    );
  });

  it("(b) a row in the middle deleted: verify exits 1 at the row after it", async () => {
    tamperWith(file, (db) => db.prepare("delete from signature_audit where seq = 3").run());
    const { code, err } = await cli("audit", "verify");
    expect(code).to.equal(EXIT.failed);
    expect(err).to.match(/broken at seq 4: row 3 is missing here/);
  });

  it("(c) a row changed and its own hash recomputed (the scheme is public): verify exits 1 at the next row", async () => {
    tamperWith(file, (db) => {
      const row = rawRow(db, 3);
      const forged = { ...row, appId: "app_thief" };
      db.prepare("update signature_audit set app_id = ?, hash = ? where seq = 3").run(
        forged.appId,
        auditRowHash(forged.prevHash, forged),
      );
    });
    const { code, err } = await cli("audit", "verify");
    expect(code).to.equal(EXIT.failed);
    expect(err).to.match(/broken at seq 4: its prevHash is not row 3's hash/);
  });

  it("(d) two rows' seqs swapped: verify exits 1 at the lower of them", async () => {
    tamperWith(file, (db) =>
      db.exec(`update signature_audit set seq = -1 where seq = 2;
               update signature_audit set seq = 2 where seq = 5;
               update signature_audit set seq = 5 where seq = -1;`),
    );
    const { code, err } = await cli("audit", "verify");
    expect(code).to.equal(EXIT.failed);
    expect(err).to.match(/broken at seq 2: its prevHash is not row 1's hash/);
  });

  it("the end cut off: verify exits 1, as the log remembers giving those seqs out", async () => {
    tamperWith(file, (db) => db.prepare("delete from signature_audit where seq >= 5").run());
    const { code, err } = await cli("audit", "verify");
    expect(code).to.equal(EXIT.failed);
    expect(err).to.match(/broken at seq 5: rows 5 to 6 are missing from the end: deleted \(seq 6 was given out\)/);
  });

  it("the end cut off and the counter wound back too: verify passes, only the head kept elsewhere is gone", async () => {
    tamperWith(file, (db) => {
      db.prepare("delete from signature_audit where seq >= 5").run();
      // The mark of the highest seq given out refuses to go down, until the attacker drops its trigger too.
      db.exec("drop trigger signature_audit_mark_no_lowering");
      db.prepare("update signature_audit_mark set seq = 4").run();
    });
    const { code, out } = await cli("audit", "verify");
    expect(code).to.equal(EXIT.ok);
    expect(out).to.include("verifies: 4 row(s)").and.not.include(recordedHead.hash);
    expect((await exported()).find((row) => row.seq === recordedHead.seq)).to.equal(undefined);
  });

  it("export prints every row as a JSON line, absent fields left out, from after --after", async () => {
    const rows = await exported();
    expect(rows.map((row) => row.seq)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(rows[0]).to.deep.equal({
      seq: 1,
      at: "2025-01-01T00:00:00.000Z",
      ...auditEntry(1),
      prevHash: `0x${"0".repeat(64)}`,
      hash: rows[0]!.hash,
    });
    expect(Object.keys(rows[0]!)).to.deep.equal([
      "seq",
      "at",
      "purpose",
      "signer",
      "digest",
      "signature",
      "appId",
      "userId",
      "chain",
      "prevHash",
      "hash",
    ]);
    expect((await exported("--after", "4")).map((row) => row.seq)).to.deep.equal([5, 6]);
    expect(await exported("--after", "6")).to.deep.equal([]);
  });

  it("every row deleted: verify exits 1; a log never written to verifies as empty", async () => {
    tamperWith(file, (db) => db.prepare("delete from signature_audit").run());
    expect(await cli("audit", "verify")).to.deep.include({ code: EXIT.failed });
    file = path.join(dir, "fresh.sqlite");
    expect(await cli("audit", "verify")).to.deep.equal({
      code: EXIT.ok,
      out: "The signature audit log is empty: no custody signature is logged yet.",
      err: "",
    });
    expect(await cli("audit", "export")).to.deep.equal({ code: EXIT.ok, out: "", err: "" });
  });
});
