/**
 * Signs 32-byte digests with one secp256k1 key held somewhere: an HSM token, an encrypted keystore, or (in
 * development) the environment. Asynchronous, since a token answers over a driver and may queue.
 */
export interface CustodySigner {
  /** The key's Ethereum address (EIP-55). */
  readonly address: string;
  /** Where the key is, safe to log: never a PIN, password or key (e.g. `pkcs11:token=idwallet;object=relayer`). */
  readonly description: string;
  /** 65-byte r ‖ s ‖ v signature of `digest` as 0x-hex: low s (EIP-2), v 27 or 28. */
  sign(digest: Uint8Array): Promise<string>;
  /** Releases what the signer holds (sessions, a loaded module); signing afterwards fails. */
  close?(): Promise<void>;
}
