import { AbiCoder, computeAddress, getBytes, hexlify } from "ethers";
import { ecdsaSign } from "secp256k1";
import { keccak256Bytes } from "../identity/keccak";

/** Signs gateway answers with one key; its address must be in the OffchainResolver's signer set. */
export interface CcipSigner {
  readonly address: string;
  /** `abi.encode(bytes result, uint64 expires, bytes sig)`, the response resolveWithProof checks. */
  signResponse(target: string, expires: number, request: string, result: string): string;
}

const EXPIRES_BYTES = 8;
const abi = AbiCoder.defaultAbiCoder();
/** The response resolveWithProof decodes. */
const encodeResponse = (result: string, expires: number, sig: string): string =>
  abi.encode(["bytes", "uint64", "bytes"], [result, expires, sig]);

/**
 * A signer for `privateKey`. Signatures are 65-byte r ‖ s ‖ v over the raw digest
 * keccak256(0x1900 ‖ target ‖ expires(uint64) ‖ keccak256(request) ‖ keccak256(result)), made with the
 * `secp256k1` package's native binding (RFC 6979, the same signature ethers makes, ~7× faster).
 */
export function createCcipSigner(privateKey: string): CcipSigner {
  const key = getBytes(privateKey);
  const address = computeAddress(privateKey);
  const preimage = Buffer.alloc(2 + 20 + EXPIRES_BYTES + 32 + 32);
  preimage[0] = 0x19;
  preimage[1] = 0x00;
  return {
    address,
    signResponse(target, expires, request, result) {
      preimage.set(getBytes(target), 2);
      preimage.writeBigUInt64BE(BigInt(expires), 22);
      keccak256Bytes(getBytes(request)).copy(preimage, 30);
      keccak256Bytes(getBytes(result)).copy(preimage, 62);
      const { signature, recid } = ecdsaSign(keccak256Bytes(preimage), key);
      const sig = new Uint8Array(65);
      sig.set(signature, 0);
      sig[64] = 27 + recid;
      return encodeResponse(result, expires, hexlify(sig));
    },
  };
}
