import type { AuditLogRepository } from "./auditLogRepository";
import { type AuditChainVerdict, verifyAuditChain } from "./auditChain";
import { type AuditKey, auditMarkTag } from "./auditKey";

type VerifiedLog = Pick<AuditLogRepository, "rows" | "mark">;

/**
 * Verifies the stored log from its first row: the chain (verifyAuditChain), then that no row is missing from its end
 * while the store still remembers giving its seq out. With `key` (AUDIT_LOG_KEY), the mark's own tag must verify too
 * where it stands at a keyed row: cutting the end off and winding the mark back shows, as the thief cannot tag the
 * lower seq. Only a mark the thief saw earlier and puts back (tag and all) passes, until the service appends again.
 * A log keyed with a key is refused without it, and a log with no keyed row at all is refused with one: rows written
 * under the key and then re-chained with plain hashes look just like a log from before the key.
 */
export async function verifyAuditLog(log: VerifiedLog, key?: AuditKey): Promise<AuditChainVerdict> {
  // Read before the rows: they are read up to the newest row when reading begins, so rows appended meanwhile count.
  const mark = await log.mark();
  const verdict = await verifyAuditChain(log.rows(), undefined, key);
  if (!verdict.ok) {
    if (key !== undefined || mark.tag === undefined) return verdict;
    return { ...verdict, reason: `${verdict.reason} (the log is keyed: verify it with AUDIT_LOG_KEY)` };
  }
  const broken = (brokenAt: number, reason: string): AuditChainVerdict => ({
    ok: false,
    count: verdict.count,
    brokenAt,
    reason,
  });
  if (mark.seq > verdict.count) {
    const first = verdict.count + 1;
    const missing = first === mark.seq ? `row ${first} is` : `rows ${first} to ${mark.seq} are`;
    return broken(first, `${missing} missing from the end: deleted (seq ${mark.seq} was given out)`);
  }
  if (key === undefined) {
    if (mark.tag === undefined) return verdict;
    return broken(1, "the log is keyed: verify it with AUDIT_LOG_KEY");
  }
  if (verdict.count === 0) return verdict;
  if (verdict.keyedFrom === undefined) {
    return broken(
      1,
      "no row is tagged under AUDIT_LOG_KEY: either the service has not signed since the key was set (verify without " +
        "it), or the keyed rows were rewritten with plain hashes by someone without the key",
    );
  }
  // The mark at a keyed row carries its tag; a mark behind the first keyed row was wound back past every keyed one.
  const marked = await rowAt(log, mark.seq, verdict);
  if (marked === undefined || mark.seq < verdict.keyedFrom || mark.tag !== auditMarkTag(key, mark.seq, marked)) {
    return broken(
      mark.seq + 1,
      `the mark of the last append (seq ${mark.seq}) does not carry its tag under AUDIT_LOG_KEY: rows after seq ` +
        `${mark.seq} were deleted and the mark wound back, or the mark was changed`,
    );
  }
  return verdict;
}

/** The hash of row `seq`: the head's, or read again if rows were appended after the mark was read. */
async function rowAt(log: VerifiedLog, seq: number, verdict: AuditChainVerdict): Promise<string | undefined> {
  if (verdict.ok && seq === verdict.count) return verdict.head;
  for await (const row of log.rows({ afterSeq: seq - 1 })) return row.seq === seq ? row.hash : undefined;
  return undefined;
}
