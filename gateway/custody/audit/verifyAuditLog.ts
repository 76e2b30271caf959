import type { AuditLogRepository } from "../../storage/auditLogRepository";
import { type AuditChainVerdict, verifyAuditChain } from "./auditChain";

/**
 * Verifies the stored log from its first row: the hash chain (verifyAuditChain), then that no row is missing from its
 * end while the store still remembers giving its seq out. That last check stops only someone who cuts rows off the
 * end and leaves the store's counter alone; the scheme being public, only a head hash kept outside the database
 * catches the rest.
 */
export async function verifyAuditLog(log: Pick<AuditLogRepository, "rows" | "highestSeq">): Promise<AuditChainVerdict> {
  // Read before the rows: they are read up to the newest row when reading begins, so rows appended meanwhile count.
  const highestSeq = await log.highestSeq();
  const verdict = await verifyAuditChain(log.rows());
  if (!verdict.ok || highestSeq <= verdict.count) return verdict;
  const first = verdict.count + 1;
  const missing = first === highestSeq ? `row ${first} is` : `rows ${first} to ${highestSeq} are`;
  return {
    ok: false,
    count: verdict.count,
    brokenAt: first,
    reason: `${missing} missing from the end: deleted (seq ${highestSeq} was given out)`,
  };
}
