import { hexLength, sliceHex } from "./hexData";
import type { PackedUserOperation } from "./packedUserOperation";

/** The most gas the EntryPoint may spend on an operation: its limits and preVerificationGas. */
export function operationGas(op: PackedUserOperation): bigint {
  const limits = BigInt(op.accountGasLimits);
  const paymasterLimits = hexLength(op.paymasterAndData) >= 52 ? BigInt(sliceHex(op.paymasterAndData, 20, 52)) : 0n;
  const low = (value: bigint) => value & ((1n << 128n) - 1n);
  return (limits >> 128n) + low(limits) + (paymasterLimits >> 128n) + low(paymasterLimits) + op.preVerificationGas;
}
