import { createDigestSigner } from "../crypto/digestSigner";
import type { CustodySigner } from "./custodySigner";

/**
 * A signer for a private key held in this process (a raw key from the environment, or a decrypted keystore): the
 * in-process digest signer behind the asynchronous interface.
 */
export function createEnvKeySigner(privateKey: string, description: string): CustodySigner {
  const signer = createDigestSigner(privateKey);
  return {
    address: signer.address,
    description,
    sign: async (digest) => signer.sign(digest),
  };
}
