import { type BytesLike, hexlify } from "ethers";
import { concatHex, hexLength, sliceHex, uintHex } from "./hexData";
import { hexWord, keccakOfHex, keccakOfWords, uintWord } from "./words";
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

const SIGNATURE_PLACEHOLDER = `0x${"00".repeat(65)}`;
const uint = uintHex;

/**
 * paymasterAndData of ERC-4337 v0.7 for the SponsorPaymaster: paymaster(20) ‖ verificationGasLimit(16)
 * ‖ postOpGasLimit(16) ‖ validUntil(6) ‖ validAfter(6) ‖ signature(65). Without a signature a zero
 * placeholder of the right length is used, for hashing and gas estimation.
 */
export function encodePaymasterAndData(terms: SponsorshipTerms, signature: BytesLike = SIGNATURE_PLACEHOLDER): string {
  return concatHex([
    terms.paymaster,
    uint(terms.verificationGasLimit, 16),
    uint(terms.postOpGasLimit, 16),
    uint(terms.validUntil, 6),
    uint(terms.validAfter, 6),
    typeof signature === "string" ? signature : hexlify(signature),
  ]);
}

/**
 * SponsorPaymaster.getHash computed offline: the hash a sponsor signer approves (as an EIP-191 message).
 * `op.paymasterAndData` must already carry the terms' gas limits (encodePaymasterAndData without signature).
 */
export function sponsorshipHash(op: PackedUserOperation, terms: SponsorshipTerms, chainId: bigint): string {
  const opFields = keccakOfWords([
    hexWord(op.sender),
    uintWord(op.nonce),
    keccakOfHex(op.initCode),
    keccakOfHex(op.callData),
    hexWord(op.accountGasLimits),
    hexWord(sliceHex(op.paymasterAndData, 20, 52)),
    uintWord(op.preVerificationGas),
    hexWord(op.gasFees),
  ]);
  return keccakOfWords([
    hexWord(opFields),
    uintWord(chainId),
    hexWord(terms.paymaster),
    uintWord(terms.validUntil),
    uintWord(terms.validAfter),
  ]);
}

/** validUntil (unix seconds) of a SponsorPaymaster paymasterAndData: paymaster(20) ‖ gas(16+16) ‖ validUntil(6). */
export function sponsorshipEnd(paymasterAndData: string): number | undefined {
  if (hexLength(paymasterAndData) < 58) return undefined;
  return Number(BigInt(sliceHex(paymasterAndData, 52, 58)));
}
