// Key custody: where a signing key is (a key setting's reference), and a signer for it behind one interface, whether
// the key is in a PKCS#11 token, an encrypted keystore or, in development, the environment.
export type { CustodySigner } from "./custodySigner";
export { CustodyError } from "./custodyError";
export {
  type EnvKeyReference,
  type KeystoreReference,
  type PinSource,
  type Pkcs11Reference,
  type SignerReference,
  type SignerReferenceOptions,
  parseSignerReference,
} from "./signerReference";
export { type LoadSignerOptions, loadSigner } from "./loadSigner";
export { DEFAULT_PKCS11_SESSIONS } from "./pkcs11/signer";
export { acquirePkcs11Module, loadedPkcs11Modules, type Pkcs11Module } from "./pkcs11/module";
export { SECP256K1_EC_PARAMS, decodeEcPoint, encodeEcPoint } from "./pkcs11/ecKey";
// The audit log every custody signature is appended to before it leaves the process.
export {
  type AuditChainVerdict,
  type AuditLog,
  AuditRow,
  GENESIS_HASH,
  SignatureAuditEntry,
  SignaturePurpose,
  auditKeyFrom,
  auditRowHash,
  createAuditLog,
  verifyAuditChain,
  verifyAuditLog,
} from "./audit";
