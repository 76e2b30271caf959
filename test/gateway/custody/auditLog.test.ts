import { expect } from "chai";
import { sql } from "kysely";
import { ZodError } from "zod";
import { type SignatureAuditEntry, createAuditLog, verifyAuditChain } from "../../../gateway/custody/audit";
import type { AuditLogRepository } from "../../../gateway/custody/audit/auditLogRepository";
import { openTestStore, type TestStore } from "../storage/builders";
import { auditEntries, auditEntry } from "./auditBuilders";

/** The store's audit log repository, counting its appends (one each: one transaction) and able to hold them. */
function countingRepository(inner: AuditLogRepository) {
  const appends: number[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  const repository: Pick<AuditLogRepository, "append"> = {
    append: async (entries, at) => {
      appends.push(entries.length);
      await gate;
      return inner.append(entries, at);
    },
  };
  return {
    repository,
    appends,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    release: () => open(),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("custody audit: the log's group commit", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.database.close());

  const storedRows = async () => {
    const rows = [];
    for await (const row of store.repos.auditLog.rows()) rows.push(row);
    return rows;
  };

  it("500 signatures recorded at once are 500 rows, in call order, in one transaction, and the chain verifies", async () => {
    const counting = countingRepository(store.repos.auditLog);
    const log = createAuditLog(counting.repository, store.clock.now);
    const entries = auditEntries(500);
    await Promise.all(entries.map((entry) => log.record(entry)));
    expect(counting.appends).to.deep.equal([500]);
    const rows = await storedRows();
    expect(rows.map((row) => row.digest)).to.deep.equal(entries.map((entry) => entry.digest));
    expect(rows.map((row) => row.seq)).to.deep.equal(entries.map((_, i) => i + 1));
    expect(await verifyAuditChain(rows)).to.deep.include({ ok: true, count: 500 });
  });

  it("settles no caller before its batch committed, and each after it", async () => {
    const counting = countingRepository(store.repos.auditLog);
    const log = createAuditLog(counting.repository, store.clock.now);
    counting.hold();
    const settled: number[] = [];
    const records = auditEntries(3).map((entry, i) => log.record(entry).then(() => settled.push(i)));
    await turn();
    await turn();
    expect([settled, await storedRows()]).to.deep.equal([[], []]);
    counting.release();
    await Promise.all(records);
    expect(settled).to.deep.equal([0, 1, 2]);
    expect((await store.repos.auditLog.head())?.seq).to.equal(3);
  });

  it("records arriving while an append runs wait and go together in the next one", async () => {
    const counting = countingRepository(store.repos.auditLog);
    const log = createAuditLog(counting.repository, store.clock.now);
    counting.hold();
    const first = log.record(auditEntry(1));
    await turn();
    const later: Promise<void>[] = [];
    for (let i = 2; i <= 11; i++) {
      later.push(log.record(auditEntry(i)));
      await turn();
    }
    expect(counting.appends).to.deep.equal([1]);
    counting.release();
    await Promise.all([first, ...later]);
    expect(counting.appends).to.deep.equal([1, 10]);
    expect(await verifyAuditChain(await storedRows())).to.deep.include({ ok: true, count: 11 });
  });

  it("a failed append rejects every caller of its batch and stores none of it; the next batch is stored", async () => {
    // The sixth insert of the batch fails, after five went in: the transaction must take them back out.
    await sql`create trigger poison before insert on signature_audit when new.user_id = 'poison'
      begin select raise(abort, 'disk says no'); end`.execute(store.database.db);
    const log = createAuditLog(store.repos.auditLog, store.clock.now);
    const batch = auditEntries(10).map((entry, i) => (i === 5 ? { ...entry, userId: "poison" } : entry));
    const outcomes = await Promise.allSettled(batch.map((entry) => log.record(entry)));
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(Array(10).fill("rejected"));
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason.message).to.match(/disk says no/);
    expect(await storedRows()).to.deep.equal([]);

    await Promise.all(auditEntries(3, 20).map((entry) => log.record(entry)));
    const rows = await storedRows();
    expect(rows.map((row) => row.seq)).to.deep.equal([1, 2, 3]);
    expect(await verifyAuditChain(rows)).to.deep.include({ ok: true, count: 3 });
  });

  it("refuses a malformed entry alone: the others recorded with it are stored", async () => {
    const log = createAuditLog(store.repos.auditLog, store.clock.now);
    const bad: SignatureAuditEntry[] = [
      { ...auditEntry(2), purpose: "anything" as never },
      { ...auditEntry(3), digest: `0x${"ab".repeat(31)}` },
      { ...auditEntry(4), signature: `0x${"ab".repeat(64)}` },
      { ...auditEntry(5), signer: "0x1234" },
    ];
    const outcomes = await Promise.allSettled([auditEntry(1), ...bad, auditEntry(6)].map((entry) => log.record(entry)));
    expect(outcomes.map((outcome) => outcome.status)).to.deep.equal([
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    for (const outcome of outcomes.slice(1, 5)) {
      expect((outcome as PromiseRejectedResult).reason).to.be.instanceOf(ZodError);
    }
    expect((await storedRows()).map((row) => row.digest)).to.deep.equal([auditEntry(1).digest, auditEntry(6).digest]);
  });

  it("stores the one spelling of an entry (EIP-55 signer, lower-case hex), stamped with the clock at its commit", async () => {
    const log = createAuditLog(store.repos.auditLog, store.clock.now);
    const entry = auditEntry(1);
    store.clock.advance(1500);
    await log.record({
      ...entry,
      signer: entry.signer.toLowerCase(),
      digest: `0x${entry.digest.slice(2).toUpperCase()}`,
      signature: `0X${entry.signature.slice(2).toUpperCase()}`,
    });
    const [row] = await storedRows();
    expect(row).to.deep.include({ ...entry, seq: 1, at: "2025-01-01T00:00:01.500Z" });
  });
});
