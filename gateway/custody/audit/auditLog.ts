import type { AuditLogRepository } from "./auditLogRepository";
import type { AuditKey } from "./auditKey";
import { canonicalAuditEntry, type SignatureAuditEntry } from "./signatureAudit";

/** The signature audit log as a signing path uses it. */
export interface AuditLog {
  /**
   * Logs one signature. Resolves once its row is committed; rejects if the entry is malformed or the append failed,
   * and the caller must then not release the signature (design §1.8: no custody signature leaves unlogged).
   */
  record(entry: SignatureAuditEntry): Promise<void>;
}

interface Waiting {
  readonly entry: SignatureAuditEntry;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The audit log over `repository`, with group commit: the entries recorded in one turn of the event loop are appended
 * in one call (one transaction, one fsync) in the order they were recorded, and while an append runs, the entries
 * that arrive meanwhile wait and go together in the next. Each caller's promise settles with its batch's commit: a
 * failed append rejects every caller of the batch, and stores none of it. `clock` stamps each batch. With `key`
 * (AUDIT_LOG_KEY) each row is chained by its HMAC tag: one HMAC a row, computed in the batch's transaction.
 */
export function createAuditLog(
  repository: Pick<AuditLogRepository, "append">,
  clock: () => Date,
  key?: AuditKey,
): AuditLog {
  let waiting: Waiting[] = [];
  /** An append is scheduled or running; records meanwhile join the next batch. */
  let busy = false;

  const appendWaiting = async (): Promise<void> => {
    const batch = waiting;
    waiting = [];
    try {
      await repository.append(
        batch.map((item) => item.entry),
        clock(),
        key,
      );
      for (const item of batch) item.resolve();
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
    if (waiting.length > 0) setImmediate(() => void appendWaiting());
    else busy = false;
  };

  return {
    record(entry) {
      let canonical: SignatureAuditEntry;
      try {
        canonical = canonicalAuditEntry(entry);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<void>((resolve, reject) => {
        waiting.push({ entry: canonical, resolve, reject });
        if (!busy) {
          busy = true;
          setImmediate(() => void appendWaiting());
        }
      });
    },
  };
}
