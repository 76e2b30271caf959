import { expect } from "chai";
import { createHash } from "node:crypto";
import {
  AUDIT_LOG_START,
  type AuditRow,
  GENESIS_HASH,
  MalformedAuditRowError,
  auditRowHash,
  verifyAuditChain,
} from "../../../gateway/custody/audit";
import { encodeAuditRow } from "../../../gateway/custody/audit/auditRowHash";
import { auditEntry, chainedRows } from "./auditBuilders";

/** `row` with `changes`, its hash left as it was (an edit by someone who does not recompute it). */
const edited = (row: AuditRow, changes: Partial<AuditRow>): AuditRow => ({ ...row, ...changes });
/** `row` with `changes` and its own hash recomputed (an attacker who knows the scheme). */
const rehashed = (row: AuditRow, changes: Partial<AuditRow>): AuditRow => {
  const next = { ...row, ...changes };
  return { ...next, hash: auditRowHash(next.prevHash, next) };
};

describe("custody audit: the row hash", () => {
  const [row] = chainedRows(1) as [AuditRow];

  it("starts the chain at the genesis hash, 0x and 64 zeros", () => {
    expect(GENESIS_HASH).to.equal(`0x${"0".repeat(64)}`);
    expect(row.prevHash).to.equal(GENESIS_HASH);
    expect(row.hash).to.equal(auditRowHash(GENESIS_HASH, row));
  });

  it("is SHA-256 of the documented encoding: scheme, prevHash, then the fields in order, each length-prefixed", () => {
    const field = (value: string | undefined): Buffer => {
      if (value === undefined) return Buffer.from([0]);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(value));
      return Buffer.concat([Buffer.from([1]), length, Buffer.from(value, "utf8")]);
    };
    const { seq, at, purpose, signer, digest, signature } = row;
    const parts = ["idwallet signature audit v1", GENESIS_HASH, String(seq), at, purpose, signer, digest, signature];
    const encoded = Buffer.concat([...parts.map(field), field("app_é"), field(undefined), field("")]);
    const expected = `0x${createHash("sha256").update(encoded).digest("hex")}`;
    const { userId: _userId, ...withoutUser } = row;
    expect(auditRowHash(GENESIS_HASH, { ...withoutUser, appId: "app_é", chain: "" })).to.equal(expected);
  });

  it("a custody root's covered hashes come last, joined by commas; a thief who drops one changes the hash", () => {
    const covers = [`0x${"ab".repeat(32)}`, `0x${"cd".repeat(32)}`];
    const root = { ...row, purpose: "custodyRoot" as const, covers };
    const { covers: _none, ...withoutCovers } = root;
    const plain = createHash("sha256");
    const prefix = Buffer.concat([Buffer.from([1]), Buffer.alloc(4)]);
    prefix.writeUInt32BE(covers.join(",").length, 1);
    // The row's encoding without the field, then the field: rows without one hash exactly as before it existed.
    plain.update(encodeAuditRow("idwallet signature audit v1", GENESIS_HASH, withoutCovers));
    plain.update(Buffer.concat([prefix, Buffer.from(covers.join(","))]));
    expect(auditRowHash(GENESIS_HASH, root)).to.equal(`0x${plain.digest("hex")}`);
    expect(auditRowHash(GENESIS_HASH, { ...root, covers: covers.slice(1) })).to.not.equal(
      auditRowHash(GENESIS_HASH, root),
    );
  });

  it("changes with every field and with prevHash", () => {
    const changes: Partial<AuditRow>[] = [
      { seq: 2 },
      { at: "2025-01-01T00:00:00.001Z" },
      { purpose: row.purpose === "eip1271" ? "sponsorship" : "eip1271" },
      { signer: "0x000000000000000000000000000000000000dEaD" },
      { digest: `0x${"00".repeat(32)}` },
      { signature: `0x${"00".repeat(65)}` },
      { appId: "app_other" },
      { userId: "phone:14155550000" },
      { chain: "eth" },
    ];
    const hashes = new Set([row.hash, auditRowHash(`0x${"11".repeat(32)}`, row)]);
    for (const change of changes) hashes.add(auditRowHash(row.prevHash, { ...row, ...change }));
    expect(hashes.size).to.equal(changes.length + 2);
  });

  it("tells an absent field from an empty one, and text moved from one field to the next", () => {
    const { appId: _appId, userId: _userId, ...bare } = row;
    const hashes = [
      auditRowHash(GENESIS_HASH, bare),
      auditRowHash(GENESIS_HASH, { ...bare, appId: "" }),
      auditRowHash(GENESIS_HASH, { ...bare, userId: "" }),
      auditRowHash(GENESIS_HASH, { ...bare, appId: "ab", userId: "c" }),
      auditRowHash(GENESIS_HASH, { ...bare, appId: "a", userId: "bc" }),
    ];
    expect(new Set(hashes).size).to.equal(hashes.length);
  });

  it("refuses a seq that is not a positive integer", () => {
    for (const seq of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => auditRowHash(GENESIS_HASH, { ...row, seq })).to.throw(RangeError);
    }
  });
});

describe("custody audit: verifying the chain, as the attacker who rewrites rows", () => {
  const rows = chainedRows(6);
  const bySeq = (list: AuditRow[]) => [...list].sort((a, b) => a.seq - b.seq);

  it("passes an intact log, giving its length and head hash; an empty log has no head", async () => {
    expect(await verifyAuditChain(rows)).to.deep.equal({ ok: true, count: 6, head: rows[5]!.hash });
    expect(await verifyAuditChain([])).to.deep.equal({ ok: true, count: 0, head: undefined });
  });

  it("reads an async source as the log's reader gives it", async () => {
    async function* source() {
      yield* rows;
    }
    expect(await verifyAuditChain(source())).to.deep.include({ ok: true, count: 6 });
  });

  it("an edited digest breaks the chain at exactly that row", async () => {
    const tampered = rows.map((row) => (row.seq === 3 ? edited(row, { digest: auditEntry(99).digest }) : row));
    expect(await verifyAuditChain(tampered)).to.deep.equal({
      ok: false,
      count: 2,
      brokenAt: 3,
      reason: "the row does not hash to its hash: it was changed",
    });
  });

  it("an edit with the row's hash recomputed breaks the chain at the next row", async () => {
    const tampered = rows.map((row) => (row.seq === 3 ? rehashed(row, { appId: "app_thief" }) : row));
    expect(await verifyAuditChain(tampered)).to.deep.include({ ok: false, count: 3, brokenAt: 4 });
    expect(await verifyAuditChain(tampered))
      .to.have.property("reason")
      .that.match(/prevHash is not row 3's hash/);
  });

  it("a deleted row breaks it at the row after; a deleted first row at row 2", async () => {
    const middle = await verifyAuditChain(rows.filter((row) => row.seq !== 4));
    expect(middle).to.deep.equal({
      ok: false,
      count: 3,
      brokenAt: 5,
      reason: "row 4 is missing here: deleted or moved",
    });
    expect(await verifyAuditChain(rows.filter((row) => row.seq > 2))).to.deep.include({
      count: 0,
      brokenAt: 3,
      reason: "rows 1 to 2 are missing here: deleted or moved",
    });
  });

  it("a deleted row with the rows after it renumbered still breaks it: the next one names the deleted row", async () => {
    const renumbered = rows
      .filter((row) => row.seq !== 3)
      .map((row) => (row.seq > 3 ? { ...row, seq: row.seq - 1 } : row));
    expect(await verifyAuditChain(renumbered)).to.deep.include({ ok: false, count: 2, brokenAt: 3 });
  });

  it("two rows' seqs swapped break it at the lower of them", async () => {
    const swapped = bySeq(
      rows.map((row) => (row.seq === 3 ? { ...row, seq: 5 } : row.seq === 5 ? { ...row, seq: 3 } : row)),
    );
    const verdict = await verifyAuditChain(swapped);
    expect(verdict).to.deep.include({ ok: false, count: 2, brokenAt: 3 });
    expect(verdict)
      .to.have.property("reason")
      .that.match(/prevHash is not row 2's hash/);
  });

  it("an inserted row with a seq already taken breaks it where the seq repeats", async () => {
    const forged = rehashed({ ...rows[3]!, prevHash: rows[2]!.hash }, { digest: auditEntry(99).digest });
    const withForged = [...rows.slice(0, 3), forged, ...rows.slice(3)];
    const verdict = await verifyAuditChain(withForged);
    expect(verdict).to.deep.equal({
      ok: false,
      count: 4,
      brokenAt: 4,
      reason: "seq 4 comes after 4: a row was inserted or moved",
    });
  });

  it("rows out of order break it at the first out of place", async () => {
    const reordered = [rows[0]!, rows[2]!, rows[1]!, ...rows.slice(3)];
    expect(await verifyAuditChain(reordered)).to.deep.include({ ok: false, count: 1, brokenAt: 3 });
  });

  it("a cut tail, or a tail rewritten with every hash recomputed, passes: only the head recorded elsewhere shows it", async () => {
    const recorded = await verifyAuditChain(rows);
    const cut = await verifyAuditChain(rows.slice(0, 4));
    expect(cut).to.deep.include({ ok: true, count: 4 });
    let prevHash = rows[2]!.hash;
    const rewritten = [...rows.slice(0, 3)];
    for (const row of rows.slice(3)) {
      const forged = rehashed({ ...row, prevHash }, { appId: "app_thief" });
      rewritten.push(forged);
      prevHash = forged.hash;
    }
    const rewrite = await verifyAuditChain(rewritten);
    expect(rewrite).to.deep.include({ ok: true, count: 6 });
    for (const verdict of [cut, rewrite])
      expect(verdict)
        .to.have.property("head")
        .that.does.not.equal(recorded.ok && recorded.head);
  });

  it("a malformed row the source reports breaks it there, after the rows before it were checked", async () => {
    async function* source() {
      yield* rows.slice(0, 2);
      throw new MalformedAuditRowError(3, "purpose: Invalid option");
    }
    expect(await verifyAuditChain(source())).to.deep.equal({
      ok: false,
      count: 2,
      brokenAt: 3,
      reason: "the row is malformed (purpose: Invalid option)",
    });
    async function* failing() {
      yield rows[0]!;
      throw new Error("disk I/O error");
    }
    let thrown: unknown;
    await verifyAuditChain(failing()).catch((error: unknown) => (thrown = error));
    expect(thrown).to.have.property("message", "disk I/O error");
  });

  it("verifies a stretch from a known row, and refuses one that does not follow it", async () => {
    const from = { seq: 3, hash: rows[2]!.hash };
    expect(await verifyAuditChain(rows.slice(3), from)).to.deep.equal({ ok: true, count: 3, head: rows[5]!.hash });
    expect(await verifyAuditChain(rows.slice(3), { seq: 3, hash: rows[1]!.hash })).to.deep.include({ brokenAt: 4 });
    expect(await verifyAuditChain(rows, AUDIT_LOG_START)).to.deep.include({ ok: true });
  });
});
