// The signature audit log (design §1.8): every custody signature is appended, hash-chained, before it leaves the
// process; `audit verify` checks the chain.
export {
  AuditRow,
  GENESIS_HASH,
  MalformedAuditRowError,
  SignatureAuditEntry,
  SignaturePurpose,
  canonicalAuditEntry,
} from "./signatureAudit";
export { auditRowHash } from "./auditRowHash";
export {
  AUDIT_LOG_START,
  type AuditChainLink,
  type AuditChainVerdict,
  chainAuditRows,
  verifyAuditChain,
} from "./auditChain";
export { type AuditLog, createAuditLog } from "./auditLog";
export { verifyAuditLog } from "./verifyAuditLog";
