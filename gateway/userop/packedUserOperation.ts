import { AbiCoder, type BytesLike, concat, keccak256, toBeHex, zeroPadValue } from "ethers";

/** ERC-4337 v0.7 PackedUserOperation, as the EntryPoint takes it. */
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

const abi = AbiCoder.defaultAbiCoder();

/** Packs two uint128 values into one bytes32, `high` first (accountGasLimits, gasFees). */
export function packUint128Pair(high: bigint, low: bigint): string {
  const max = (1n << 128n) - 1n;
  if (high < 0n || low < 0n || high > max || low > max) throw new RangeError("value does not fit in uint128");
  return zeroPadValue(toBeHex((high << 128n) | low), 32);
}

/** accountGasLimits of a UserOperation. */
export const packAccountGasLimits = (verificationGasLimit: bigint, callGasLimit: bigint): string =>
  packUint128Pair(verificationGasLimit, callGasLimit);

/** gasFees of a UserOperation. */
export const packGasFees = (maxPriorityFeePerGas: bigint, maxFeePerGas: bigint): string =>
  packUint128Pair(maxPriorityFeePerGas, maxFeePerGas);

/** initCode: the factory address followed by its call data. */
export const packInitCode = (factory: string, factoryData: BytesLike): string => concat([factory, factoryData]);

/** EntryPoint v0.7 `getUserOpHash`, computed offline: keccak(keccak(packed fields), entryPoint, chainId). */
export function userOperationHash(op: PackedUserOperation, entryPoint: string, chainId: bigint): string {
  const fields = abi.encode(
    ["address", "uint256", "bytes32", "bytes32", "bytes32", "uint256", "bytes32", "bytes32"],
    [
      op.sender,
      op.nonce,
      keccak256(op.initCode),
      keccak256(op.callData),
      op.accountGasLimits,
      op.preVerificationGas,
      op.gasFees,
      keccak256(op.paymasterAndData),
    ],
  );
  return keccak256(abi.encode(["bytes32", "address", "uint256"], [keccak256(fields), entryPoint, chainId]));
}
