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
