import type { AuditKey } from "./auditKey";
import type { AuditRow, SignatureAuditEntry, SignaturePurpose } from "./signatureAudit";

/** The highest seq given out, as the mark stores it, and its HMAC tag (auditMarkTag) if a keyed append wrote it. */
export interface AuditMark {
  readonly seq: number;
  readonly tag?: string;
}

/** The signature audit log: an append-only, hash-chained table of every custody signature (design §1.8). */
export interface AuditLogRepository {
  /**
   * Appends `entries`, in order, after the newest row, stamped `at`, chained by HMAC tags under `key` (by plain hashes
   * without one), and raises the mark (tagged under `key`): reading that row and inserting the new ones is one write
   * transaction, so appenders in several processes never fork the chain. The first seq is past the highest this
   * repository ever appended too, so rows cut off the end behind its back leave a gap. All or none are stored. Returns
   * the rows as stored.
   */
  append(entries: readonly SignatureAuditEntry[], at: Date, key?: AuditKey): Promise<AuditRow[]>;
  /**
   * The rows in seq order, after `afterSeq` if given, up to the newest row when reading began, read a page at a
   * time. A row that is not well formed throws MalformedAuditRowError when reached.
   */
  rows(options?: { readonly afterSeq?: number }): AsyncIterable<AuditRow>;
  /** The newest row, if any. */
  head(): Promise<AuditRow | undefined>;
  /** The newest row of one of `purposes`, if any: which key signed that kind of thing last. */
  newestOf(purposes: readonly SignaturePurpose[]): Promise<AuditRow | undefined>;
  /** The highest seq ever given out, a deleted row's included (0 before the first append). */
  highestSeq(): Promise<number>;
  /** The mark as stored: the seq of the last append (0 before the first) and its tag. */
  mark(): Promise<AuditMark>;
}
