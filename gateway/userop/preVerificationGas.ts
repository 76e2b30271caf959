import { AbiCoder, getBytes } from "ethers";
import type { PackedUserOperation } from "./packedUserOperation";

const abi = AbiCoder.defaultAbiCoder();
const OP_TYPES = ["address", "uint256", "bytes", "bytes", "bytes32", "uint256", "bytes32", "bytes", "bytes"];

/** The reference bundler's constants (eth-infinitism `calcPreVerificationGas`), for a bundle of one. */
const FIXED = 21_000;
const PER_OP = 18_300;
const PER_OP_WORD = 4;
const ZERO_BYTE = 4;
const NON_ZERO_BYTE = 16;

/**
 * preVerificationGas: the gas of an operation the EntryPoint cannot meter, chiefly its call data in the bundle
 * transaction. Counted as the reference bundler does (as if alone in its bundle), so external bundlers accept it.
 */
export function preVerificationGas(op: PackedUserOperation): bigint {
  const packed = getBytes(
    abi.encode(OP_TYPES, [
      op.sender,
      op.nonce,
      op.initCode,
      op.callData,
      op.accountGasLimits,
      op.preVerificationGas,
      op.gasFees,
      op.paymasterAndData,
      op.signature,
    ]),
  );
  let callDataCost = 0;
  for (const byte of packed) callDataCost += byte === 0 ? ZERO_BYTE : NON_ZERO_BYTE;
  const words = Math.ceil(packed.length / 32);
  return BigInt(callDataCost + FIXED + PER_OP + PER_OP_WORD * words);
}
