import { AbiCoder, keccak256, type SigningKey, solidityPacked } from "ethers";

const abi = AbiCoder.defaultAbiCoder();

/** SignatureVerifier.makeSignatureHash offline: keccak256(0x1900 ‖ target ‖ expires ‖ keccak256(request) ‖ keccak256(result)). */
export function ccipSignatureHash(target: string, expires: bigint | number, request: string, result: string): string {
  // EIP-191 version 0x00 ("data with intended validator"): the validator is the resolver contract.
  return keccak256(
    solidityPacked(
      ["bytes2", "address", "uint64", "bytes32", "bytes32"],
      ["0x1900", target, expires, keccak256(request), keccak256(result)],
    ),
  );
}

/** The gateway's EIP-3668 answer for the resolver's resolveWithProof: abi.encode(result, expires, sig), sig over the raw digest. */
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
