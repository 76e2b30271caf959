import { TypedDataEncoder, ZeroAddress, getBytes } from "ethers";
import type { KeySigner, SigningContext } from "../../custody/keySigner";
import { safeInterface } from "./safeArtifacts";

/** Safe's Enum.Operation: 0 CALL, 1 DELEGATECALL. */
export type SafeOperation = 0 | 1;

/** What a Safe transaction executes: one call (or delegatecall) from the Safe. */
export interface SafeCall {
  readonly to: string;
  readonly value: bigint;
  readonly data: string;
  readonly operation: SafeOperation;
}

// Safe.sol 1.5.0: SAFE_TX_TYPEHASH = keccak256("SafeTx(address to,uint256 value,bytes data,uint8 operation,
// uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)").
const SAFE_TX_TYPES = {
  SafeTx: [
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "data", type: "bytes" },
    { name: "operation", type: "uint8" },
    { name: "safeTxGas", type: "uint256" },
    { name: "baseGas", type: "uint256" },
    { name: "gasPrice", type: "uint256" },
    { name: "gasToken", type: "address" },
    { name: "refundReceiver", type: "address" },
    { name: "nonce", type: "uint256" },
  ],
};

/**
 * The relayer pays gas itself, so no refund: with gasPrice 0 Safe skips handlePayment, and with safeTxGas 0
 * too it requires the inner call to succeed (reverting with its revert data), so a failed payout never
 * burns a nonce while looking mined.
 */
const NO_REFUND = { safeTxGas: 0n, baseGas: 0n, gasPrice: 0n, gasToken: ZeroAddress, refundReceiver: ZeroAddress };

/** EIP-712 SafeTx hash of Safe 1.5.0 (domain {chainId, verifyingContract: safe}), with safeTxGas, baseGas, gasPrice 0 and gasToken, refundReceiver the zero address. */
export function safeTxHash(chainId: bigint, safe: string, call: SafeCall, nonce: bigint): string {
  // Safe.sol 1.5.0: DOMAIN_SEPARATOR_TYPEHASH = keccak256("EIP712Domain(uint256 chainId,address verifyingContract)").
  const domain = { chainId, verifyingContract: safe };
  return TypedDataEncoder.hash(domain, SAFE_TX_TYPES, { ...call, ...NO_REFUND, nonce });
}

/** One owner's signature of a safeTxHash as Safe's checkSignatures takes it: 65 bytes r ‖ s ‖ v, v 27/28 (plain ECDSA over the EIP-712 digest, not eth_sign). */
export function signSafeTx(signer: KeySigner, hash: string, context: SigningContext): Promise<string> {
  // checkSignatures: v 27/28 means ecrecover(dataHash, v, r, s); v > 30 would mean an eth_sign-prefixed digest.
  return signer.sign(getBytes(hash), context);
}

/** Calldata of execTransaction(to, value, data, operation, 0, 0, 0, 0x0, 0x0, signatures). */
export function encodeExecTransaction(call: SafeCall, signatures: string): string {
  const { safeTxGas, baseGas, gasPrice, gasToken, refundReceiver } = NO_REFUND;
  return safeInterface.encodeFunctionData("execTransaction", [
    call.to,
    call.value,
    call.data,
    call.operation,
    safeTxGas,
    baseGas,
    gasPrice,
    gasToken,
    refundReceiver,
    signatures,
  ]);
}
