import type { Logger } from "pino";
import type { AuditLogRepository } from "./auditLogRepository";
import { type AuditKey, auditKeyFrom, auditRowTag } from "./auditKey";
import { type AuditLog, createAuditLog } from "./auditLog";
import { auditRowHash } from "./auditRowHash";

/** How the newest row of the log is chained: by its tag under the key, by a plain hash, or there is no row yet. */
export type AuditLogHead = "keyed" | "plain" | "empty";

/**
 * Checks, before a process appends to the log, that it can go on with it: the newest row is tagged under `key`, or is
 * a plain row (the log from before the key: the next row starts the keyed chain). Throws where appending would break
 * the chain for `audit verify`: the newest row is keyed and this process has no key (AUDIT_LOG_KEY left out), or
 * another (the key changed), or the row was changed.
 */
export async function checkAuditLogHead(
  log: Pick<AuditLogRepository, "head">,
  key: AuditKey | undefined,
): Promise<AuditLogHead> {
  const head = await log.head();
  if (head === undefined) return "empty";
  if (key !== undefined && auditRowTag(key, head.prevHash, head) === head.hash) return "keyed";
  if (auditRowHash(head.prevHash, head) === head.hash) return "plain";
  throw new Error(
    key === undefined
      ? `the signature audit log is keyed (row ${head.seq} carries an HMAC tag): start with its AUDIT_LOG_KEY`
      : `the newest signature audit row (seq ${head.seq}) is neither tagged under AUDIT_LOG_KEY nor a plain row: the ` +
          "key is not the one the log was written with, or the row was changed (run audit verify)",
  );
}

/**
 * The audit log a process that holds the custody keys appends to: chained under AUDIT_LOG_KEY (`keyText`) when set,
 * after checkAuditLogHead. Without a key it warns: the log is then a plain hash chain that whoever can write the
 * database recomputes at will (configuration refuses that on a deployment serving real chains).
 */
export async function openAuditLog(
  repository: Pick<AuditLogRepository, "append" | "head">,
  clock: () => Date,
  keyText: string | undefined,
  logger: Pick<Logger, "info" | "warn">,
): Promise<AuditLog> {
  const key = keyText === undefined ? undefined : auditKeyFrom(keyText);
  const head = await checkAuditLogHead(repository, key);
  if (key === undefined) {
    logger.warn(
      "AUDIT_LOG_KEY is not set: the signature audit log is chained by plain hashes, which anyone who can write the database recomputes",
    );
  } else if (head === "plain") {
    logger.info("the signature audit log is chained under AUDIT_LOG_KEY from its next row on");
  }
  return createAuditLog(repository, clock, key);
}
