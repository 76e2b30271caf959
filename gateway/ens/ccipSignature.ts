import { keccak256, solidityPacked } from "ethers";

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
