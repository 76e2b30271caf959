import { AbiCoder, type SigningKey } from "ethers";
import { ccipSignatureHash } from "../../gateway/ens/ccipSignature";

const abi = AbiCoder.defaultAbiCoder();

/** A gateway's EIP-3668 answer, signed here with a key in hand (tests: the service signs through its custody signer) for the resolver's resolveWithProof: abi.encode(result, expires, sig), sig over the raw digest. */
export function signCcipResponse(
  signingKey: SigningKey,
  target: string,
  expires: bigint | number,
  request: string,
  result: string,
): string {
  // Raw digest, no "\x19Ethereum Signed Message" prefix: the contract recovers the hash as is.
  const sig = signingKey.sign(ccipSignatureHash(target, expires, request, result)).serialized;
  return abi.encode(["bytes", "uint64", "bytes"], [result, expires, sig]);
}
