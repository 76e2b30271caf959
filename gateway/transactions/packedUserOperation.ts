/**
 * ERC-4337 v0.7 PackedUserOperation, as the EntryPoint takes it: the shape a built operation is stored in (the
 * request model names it; how it is packed and hashed is userop/packedUserOperation.ts).
 */
export interface PackedUserOperation {
  sender: string;
  nonce: bigint;
  initCode: string;
  callData: string;
  /** verificationGasLimit (high 128 bits) ‖ callGasLimit (low 128 bits). */
  accountGasLimits: string;
  preVerificationGas: bigint;
  /** maxPriorityFeePerGas (high 128 bits) ‖ maxFeePerGas (low 128 bits). */
  gasFees: string;
  paymasterAndData: string;
  signature: string;
}
