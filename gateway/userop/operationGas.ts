import { hexLength, sliceHex } from "./hexData";
import type { PackedUserOperation } from "./packedUserOperation";
import { preVerificationGasBound } from "./preVerificationGas";

/** The most gas the EntryPoint may spend on an operation: its limits and preVerificationGas. */
export function operationGas(op: PackedUserOperation): bigint {
  const limits = BigInt(op.accountGasLimits);
  const paymasterLimits = hexLength(op.paymasterAndData) >= 52 ? BigInt(sliceHex(op.paymasterAndData, 20, 52)) : 0n;
  const low = (value: bigint) => value & ((1n << 128n) - 1n);
  return (limits >> 128n) + low(limits) + (paymasterLimits >> 128n) + low(paymasterLimits) + op.preVerificationGas;
}

/**
 * The part of an operation's preVerificationGas that pays an L1 data fee (userop/l1DataGas.ts): what it holds beyond
 * the L2 count the builder gives every operation (preVerificationGasBound of its own fields and paymaster); 0 on a
 * chain without the fee.
 */
export function l1DataGasOf(op: PackedUserOperation): bigint {
  if (hexLength(op.paymasterAndData) < 20) return 0n;
  const l2 = preVerificationGasBound(op, sliceHex(op.paymasterAndData, 0, 20));
  return op.preVerificationGas > l2 ? op.preVerificationGas - l2 : 0n;
}

/**
 * The gas a bundle transaction must hold for an operation: operationGas without its L1 data fee part, which the
 * EntryPoint charges the paymaster (it counts preVerificationGas as used) but no code burns. At an OP-stack chain's
 * low L2 price that part can be tens of millions of gas: in the gas limit it would pass the block's.
 */
export const bundledGas = (op: PackedUserOperation): bigint => operationGas(op) - l1DataGasOf(op);
