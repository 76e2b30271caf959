import type { CustodySigner } from "./custodySigner";
import { createEnvKeySigner } from "./envKey";
import { loadKeystoreSigner } from "./keystore";
import { openPkcs11Signer } from "./pkcs11/signer";
import { readSecretFile } from "./secretFile";
import type { SignerReference } from "./signerReference";

export interface LoadSignerOptions {
  /** PKCS#11 sessions a token signer signs on in parallel (default DEFAULT_PKCS11_SESSIONS). */
  readonly pkcs11Sessions?: number;
}

/**
 * The signer `reference` names, loaded: a PKCS#11 token logged in, a keystore decrypted, a raw key wrapped. Throws
 * CustodyError, naming the signer, when it cannot be; `close()` it when done.
 */
export async function loadSigner(reference: SignerReference, options: LoadSignerOptions = {}): Promise<CustodySigner> {
  switch (reference.kind) {
    case "env":
      return createEnvKeySigner(reference.privateKey, reference.description);
    case "keystore":
      return loadKeystoreSigner(reference);
    case "pkcs11": {
      const { pin } = reference;
      const value = pin.kind === "file" ? await readSecretFile(pin.path, "PIN", reference.description) : pin.pin;
      return openPkcs11Signer(reference, value, { sessions: options.pkcs11Sessions });
    }
  }
}
