import { type AuditKey, auditRowTag } from "./auditKey";
import { auditRowHash } from "./auditRowHash";
import { type AuditRow, GENESIS_HASH, MalformedAuditRowError, SignatureAuditEntry } from "./signatureAudit";

/** A row's place and hash: where a stretch of the chain starts from. */
export interface AuditChainLink {
  readonly seq: number;
  readonly hash: string;
}

/** Before the first row of the log. */
export const AUDIT_LOG_START: AuditChainLink = Object.freeze({ seq: 0, hash: GENESIS_HASH });

/**
 * What verifying the chain found: intact (`head` the last row's hash; `keyedFrom` the first row tagged under the key,
 * if any) or broken at a row, and why.
 */
export type AuditChainVerdict =
  | { readonly ok: true; readonly count: number; readonly head: string | undefined; readonly keyedFrom?: number }
  | { readonly ok: false; readonly count: number; readonly brokenAt: number; readonly reason: string };

/**
 * The seq the next appended row takes: past the newest row, the highest seq ever given out (the mark) and the highest
 * this process appended. A seq is never given twice: after the newest row was deleted, the next one leaves a gap in
 * its place (which verification names), and a mark wound back is still passed by what this process wrote.
 */
export const nextAuditSeq = (newestSeq: number, givenOut: number, appendedHere: number): number =>
  Math.max(newestSeq, givenOut, appendedHere) + 1;

/**
 * The rows `entries` become appended at `at` after the row whose hash is `prevHash`: seqs from `firstSeq` in order,
 * each linked to the one before, by its HMAC tag under `key` (auditKey.ts), or by its plain hash without one.
 */
export function chainAuditRows(
  prevHash: string,
  firstSeq: number,
  entries: readonly SignatureAuditEntry[],
  at: Date,
  key?: AuditKey,
): AuditRow[] {
  const time = at.toISOString();
  let previous = prevHash;
  return entries.map((entry, i) => {
    // Only a well-formed, canonical entry is stored: the log never writes a row it would refuse to read back.
    const content = { ...SignatureAuditEntry.parse(entry), seq: firstSeq + i, at: time };
    const hash = key ? auditRowTag(key, previous, content) : auditRowHash(previous, content);
    const row = { ...content, prevHash: previous, hash };
    previous = hash;
    return row;
  });
}

/**
 * Checks the chain over `rows` (in seq order, as the log reads them): each row must follow the one before (seq one
 * higher; a gap is a deleted row, a step back an inserted or reordered one), name its hash as `prevHash`, and hash to
 * its own `hash` (else it was edited). Reports the first row that fails, and how many passed before it. A row the
 * source throws MalformedAuditRowError for breaks the chain there too. `from` is the row the first one follows: the
 * log's start by default.
 *
 * With `key`, a row's `hash` may be its HMAC tag (auditRowTag): the rows written before the key carry plain hashes,
 * the first tagged row starts the keyed chain (`keyedFrom`), and every row after it must be tagged too. Whoever writes
 * the database without the key can recompute plain hashes, not tags: an edited, inserted or re-chained row at or after
 * `keyedFrom` breaks the chain there, and one before it breaks the first keyed row's link. Without `key` only plain
 * hashes verify: a rewrite with hashes recomputed passes, and so does the end cut off (verifyAuditLog's mark check).
 */
export async function verifyAuditChain(
  rows: AsyncIterable<AuditRow> | Iterable<AuditRow>,
  from: AuditChainLink = AUDIT_LOG_START,
  key?: AuditKey,
): Promise<AuditChainVerdict> {
  let count = 0;
  let expectedSeq = from.seq + 1;
  let prevHash = from.hash;
  let keyedFrom: number | undefined;
  const broken = (seq: number, reason: string): AuditChainVerdict => ({ ok: false, count, brokenAt: seq, reason });
  try {
    for await (const row of rows) {
      if (row.seq > expectedSeq) {
        const missing =
          row.seq - expectedSeq === 1 ? `row ${expectedSeq} is` : `rows ${expectedSeq} to ${row.seq - 1} are`;
        return broken(row.seq, `${missing} missing here: deleted or moved`);
      }
      if (row.seq < expectedSeq) {
        return broken(row.seq, `seq ${row.seq} comes after ${expectedSeq - 1}: a row was inserted or moved`);
      }
      if (row.prevHash !== prevHash) {
        const before = expectedSeq === 1 ? "the genesis hash" : `row ${expectedSeq - 1}'s hash`;
        return broken(row.seq, `its prevHash is not ${before}: the row before it was changed, removed or replaced`);
      }
      if (key !== undefined && auditRowTag(key, row.prevHash, row) === row.hash) {
        keyedFrom ??= row.seq;
      } else if (auditRowHash(row.prevHash, row) !== row.hash) {
        return broken(row.seq, "the row does not hash to its hash: it was changed");
      } else if (keyedFrom !== undefined) {
        return broken(
          row.seq,
          `the row carries a plain hash after the keyed rows from ${keyedFrom}: it was changed, or written, and ` +
            "chained again by someone without AUDIT_LOG_KEY",
        );
      }
      prevHash = row.hash;
      expectedSeq += 1;
      count += 1;
    }
  } catch (error) {
    if (error instanceof MalformedAuditRowError) return broken(error.seq, `the row is malformed (${error.reason})`);
    throw error;
  }
  return { ok: true, count, head: count === 0 ? undefined : prevHash, ...(keyedFrom !== undefined && { keyedFrom }) };
}
