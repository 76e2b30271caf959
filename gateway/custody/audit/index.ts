// The signature audit log (design §1.8): every custody signature is appended, hash-chained, before it leaves the
// process; `audit verify` checks the chain. From the first row written with AUDIT_LOG_KEY on, rows are chained by
// HMAC tags only the custody process (and the verifier) can compute.
export {
  AuditRow,
  GENESIS_HASH,
  MalformedAuditRowError,
  SignatureAuditEntry,
  SignaturePurpose,
  canonicalAuditEntry,
} from "./signatureAudit";
export { auditRowHash } from "./auditRowHash";
export { type AuditKey, auditKeyFrom, auditMarkTag, auditRowTag } from "./auditKey";
export { type AuditLogHead, checkAuditLogHead, openAuditLog } from "./auditLogHead";
export {
  AUDIT_LOG_START,
  type AuditChainLink,
  type AuditChainVerdict,
  chainAuditRows,
  verifyAuditChain,
} from "./auditChain";
export { type AuditLog, createAuditLog } from "./auditLog";
export { verifyAuditLog } from "./verifyAuditLog";
