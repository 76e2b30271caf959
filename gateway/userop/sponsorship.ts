import { AbiCoder, type BytesLike, concat, dataSlice, keccak256, toBeHex, zeroPadValue } from "ethers";
import type { PackedUserOperation } from "./packedUserOperation";

/** What the SponsorPaymaster needs besides the signature. */
export interface SponsorshipTerms {
  paymaster: string;
  verificationGasLimit: bigint;
  postOpGasLimit: bigint;
  /** Last second (unix) the sponsorship is valid; 0 means no end. */
  validUntil: number;
  /** First second (unix) the sponsorship is valid. */
  validAfter: number;
}

const abi = AbiCoder.defaultAbiCoder();
const SIGNATURE_PLACEHOLDER = `0x${"00".repeat(65)}`;
const uint = (value: bigint | number, bytes: number) => zeroPadValue(toBeHex(value), bytes);

/**
 * paymasterAndData of ERC-4337 v0.7 for the SponsorPaymaster: paymaster(20) ‖ verificationGasLimit(16)
 * ‖ postOpGasLimit(16) ‖ validUntil(6) ‖ validAfter(6) ‖ signature(65). Without a signature a zero
 * placeholder of the right length is used, for hashing and gas estimation.
 */
export function encodePaymasterAndData(terms: SponsorshipTerms, signature: BytesLike = SIGNATURE_PLACEHOLDER): string {
  return concat([
    terms.paymaster,
    uint(terms.verificationGasLimit, 16),
    uint(terms.postOpGasLimit, 16),
    uint(terms.validUntil, 6),
    uint(terms.validAfter, 6),
    signature,
  ]);
}

/**
 * SponsorPaymaster.getHash computed offline: the hash a sponsor signer approves (as an EIP-191 message).
 * `op.paymasterAndData` must already carry the terms' gas limits (encodePaymasterAndData without signature).
 */
export function sponsorshipHash(op: PackedUserOperation, terms: SponsorshipTerms, chainId: bigint): string {
  const opFields = keccak256(
    abi.encode(
      ["address", "uint256", "bytes32", "bytes32", "bytes32", "bytes32", "uint256", "bytes32"],
      [
        op.sender,
        op.nonce,
        keccak256(op.initCode),
        keccak256(op.callData),
        op.accountGasLimits,
        dataSlice(op.paymasterAndData, 20, 52),
        op.preVerificationGas,
        op.gasFees,
      ],
    ),
  );
  return keccak256(
    abi.encode(
      ["bytes32", "uint256", "address", "uint48", "uint48"],
      [opFields, chainId, terms.paymaster, terms.validUntil, terms.validAfter],
    ),
  );
}
