import type { AuditRow, SignatureAuditEntry, SignaturePurpose } from "../custody/audit/signatureAudit";

/** The signature audit log: an append-only, hash-chained table of every custody signature (design §1.8). */
export interface AuditLogRepository {
  /**
   * Appends `entries`, in order, after the newest row, stamped `at`: reading that row and inserting the new ones is one
   * write transaction, so appenders in several processes never fork the chain. All or none are stored. Returns the
   * rows as stored.
   */
  append(entries: readonly SignatureAuditEntry[], at: Date): Promise<AuditRow[]>;
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
}
