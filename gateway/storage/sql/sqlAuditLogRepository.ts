import type { Insertable, Kysely, Selectable } from "kysely";
import { chainAuditRows, nextAuditSeq } from "../../custody/audit/auditChain";
import { type AuditKey, auditMarkTag } from "../../custody/audit/auditKey";
import {
  AuditRow,
  GENESIS_HASH,
  MalformedAuditRowError,
  type SignatureAuditEntry,
  type SignaturePurpose,
} from "../../custody/audit/signatureAudit";
import type { AuditLogRepository, AuditMark } from "../../custody/audit/auditLogRepository";
import { lockRows } from "./dialect/rowLocks";
import type { DatabaseSchema, SignatureAuditTable } from "../schema";

/** Rows read per query when reading the log through. */
const PAGE_SIZE = 1000;

/** A stored row as an AuditRow, parsed (conventions 4); MalformedAuditRowError if it is not one. */
function toAuditRow(row: Selectable<SignatureAuditTable>): AuditRow {
  const parsed = AuditRow.safeParse({
    seq: row.seq,
    at: row.at,
    purpose: row.purpose,
    signer: row.signer,
    digest: row.digest,
    signature: row.signature,
    ...(row.app_id !== null && { appId: row.app_id }),
    ...(row.user_id !== null && { userId: row.user_id }),
    ...(row.chain !== null && { chain: row.chain }),
    ...(row.covers !== null && row.covers !== undefined && { covers: parseCovers(row.covers) }),
    prevHash: row.prev_hash,
    hash: row.hash,
  });
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  throw new MalformedAuditRowError(row.seq, reason);
}

/** The stored JSON of `covers`, or the text itself when it is no JSON (then the row fails to parse, as it should). */
function parseCovers(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const toStored = (row: AuditRow): Insertable<SignatureAuditTable> => ({
  seq: row.seq,
  at: row.at,
  purpose: row.purpose,
  signer: row.signer,
  digest: row.digest,
  signature: row.signature,
  app_id: row.appId ?? null,
  user_id: row.userId ?? null,
  chain: row.chain ?? null,
  covers: row.covers ? JSON.stringify(row.covers) : null,
  prev_hash: row.prevHash,
  hash: row.hash,
});

/**
 * The highest seq ever given out (migration 017's mark, raised by each append in its transaction). `lock`: on
 * PostgreSQL the mark's row is locked until the transaction ends, so appenders in several instances take turns (SQLite's
 * write lock already makes them, and SQLite has no `for update`).
 */
async function seqGivenOut(db: Kysely<DatabaseSchema>, lock = false): Promise<number> {
  const mark = await db
    .selectFrom("signature_audit_mark")
    .select("seq")
    .where("id", "=", 1)
    .$if(lock, lockRows(db, "update"))
    .executeTakeFirst();
  return mark?.seq ?? 0;
}

/** Rows inserted by one statement of an append. */
const ROWS_PER_INSERT = 500;

/** AuditLogRepository over SQLite and PostgreSQL: `signature_audit`, appended under the write lock or the mark's lock. */
export class SqlAuditLogRepository implements AuditLogRepository {
  /**
   * The highest seq this repository appended: a thief who cuts rows off the end and winds the mark back to a state he
   * saw (its tag and all) is not seen by the database, but the next append here leaves the gap `audit verify` names.
   */
  private appended = 0;

  constructor(private readonly db: Kysely<DatabaseSchema>) {}

  async append(entries: readonly SignatureAuditEntry[], at: Date, key?: AuditKey): Promise<AuditRow[]> {
    if (entries.length === 0) return [];
    // The driver begins every SQLite transaction immediate, and PostgreSQL's locks the mark first: the newest row is
    // read under that lock, so no other process can append between that read and these inserts.
    const stored = await this.db.transaction().execute(async (trx) => {
      const given = await seqGivenOut(trx, true);
      const newest = await trx
        .selectFrom("signature_audit")
        .select(["seq", "hash"])
        .orderBy("seq", "desc")
        .limit(1)
        .executeTakeFirst();
      const firstSeq = nextAuditSeq(newest?.seq ?? 0, given, this.appended);
      const rows = chainAuditRows(newest?.hash ?? GENESIS_HASH, firstSeq, entries, at, key);
      // Many rows a statement (a batch carries each signature of a bundle's operations), under the bound on a statement's
      // parameters (SQLite 32,766; PostgreSQL 65,535) at 11 a row.
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        await trx
          .insertInto("signature_audit")
          .values(rows.slice(i, i + ROWS_PER_INSERT).map(toStored))
          .execute();
      }
      const last = rows.at(-1)!;
      await trx
        .updateTable("signature_audit_mark")
        .set({ seq: last.seq, tag: key ? auditMarkTag(key, last.seq, last.hash) : null })
        .where("id", "=", 1)
        .execute();
      return rows;
    });
    this.appended = Math.max(this.appended, stored.at(-1)!.seq);
    return stored;
  }

  async *rows(options: { readonly afterSeq?: number } = {}): AsyncGenerator<AuditRow> {
    // Up to the newest row now: a log appended to while it is read still ends.
    const newest = await this.db.selectFrom("signature_audit").select("seq").orderBy("seq", "desc").limit(1).execute();
    const last = newest[0]?.seq ?? 0;
    let after = options.afterSeq ?? 0;
    for (;;) {
      const page = await this.db
        .selectFrom("signature_audit")
        .selectAll()
        .where("seq", ">", after)
        .where("seq", "<=", last)
        .orderBy("seq")
        .limit(PAGE_SIZE)
        .execute();
      // Parsed one at a time, so the rows before a malformed one are read before it throws.
      for (const row of page) yield toAuditRow(row);
      if (page.length < PAGE_SIZE) return;
      after = page[page.length - 1]!.seq;
    }
  }

  async head(): Promise<AuditRow | undefined> {
    const row = await this.db
      .selectFrom("signature_audit")
      .selectAll()
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    return row && toAuditRow(row);
  }

  async newestOf(purposes: readonly SignaturePurpose[]): Promise<AuditRow | undefined> {
    if (purposes.length === 0) return undefined;
    const row = await this.db
      .selectFrom("signature_audit")
      .selectAll()
      .where("purpose", "in", purposes)
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    return row && toAuditRow(row);
  }

  async mark(): Promise<AuditMark> {
    const mark = await this.db
      .selectFrom("signature_audit_mark")
      .select(["seq", "tag"])
      .where("id", "=", 1)
      .executeTakeFirst();
    return { seq: Number(mark?.seq ?? 0), ...(mark?.tag != null && { tag: mark.tag }) };
  }

  async highestSeq(): Promise<number> {
    const newest = await this.db.selectFrom("signature_audit").select("seq").orderBy("seq", "desc").limit(1).execute();
    return Math.max(newest[0]?.seq ?? 0, await seqGivenOut(this.db));
  }
}
