import { ecdsaRecover, signatureNormalize } from "secp256k1";

/**
 * The Ethereum form of a raw ECDSA signature `rs` (r ‖ s, 32 bytes each, as PKCS#11 CKM_ECDSA returns it) of
 * `digest` by the key whose uncompressed public key is `publicKey`: s made low (EIP-2: s > n/2 becomes n − s,
 * which is as valid, and the only form Ethereum accepts) and v = 27 + the recovery id that gives back `publicKey`.
 * Undefined when the signature is malformed or neither recovery id gives the key back (not this key's signature).
 */
export function toRecoverableSignature(rs: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): string | undefined {
  if (rs.length !== 64 || digest.length !== 32) return undefined;
  const signature = Buffer.alloc(65);
  signature.set(rs, 0);
  const compact = signature.subarray(0, 64);
  try {
    signatureNormalize(compact);
  } catch {
    return undefined; // r or s zero or not below n
  }
  const expected = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.length);
  for (const recid of [0, 1]) {
    let recovered: Uint8Array;
    try {
      recovered = ecdsaRecover(compact, recid, digest, false);
    } catch {
      continue; // no point with this x on the curve
    }
    if (expected.equals(recovered)) {
      signature[64] = 27 + recid;
      return `0x${signature.toString("hex")}`;
    }
  }
  return undefined;
}
