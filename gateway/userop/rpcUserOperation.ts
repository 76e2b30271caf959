import { dataLength, dataSlice, toBeHex } from "ethers";
import type { PackedUserOperation } from "./packedUserOperation";

/** A v0.7 UserOperation as ERC-4337 bundler JSON-RPC carries it (eth_sendUserOperation): unpacked, hex quantities. */
export interface RpcUserOperation {
  sender: string;
  nonce: string;
  factory?: string;
  factoryData?: string;
  callData: string;
  callGasLimit: string;
  verificationGasLimit: string;
  preVerificationGas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  paymaster?: string;
  paymasterVerificationGasLimit?: string;
  paymasterPostOpGasLimit?: string;
  paymasterData?: string;
  signature: string;
}

const high = (word: string) => toBeHex(BigInt(dataSlice(word, 0, 16)));
const low = (word: string) => toBeHex(BigInt(dataSlice(word, 16, 32)));

/** Unpacks a PackedUserOperation into the bundler RPC form. */
export function toRpcUserOperation(op: PackedUserOperation): RpcUserOperation {
  const rpc: RpcUserOperation = {
    sender: op.sender,
    nonce: toBeHex(op.nonce),
    callData: op.callData,
    verificationGasLimit: high(op.accountGasLimits),
    callGasLimit: low(op.accountGasLimits),
    preVerificationGas: toBeHex(op.preVerificationGas),
    maxPriorityFeePerGas: high(op.gasFees),
    maxFeePerGas: low(op.gasFees),
    signature: op.signature,
  };
  if (dataLength(op.initCode) > 0) {
    rpc.factory = dataSlice(op.initCode, 0, 20);
    rpc.factoryData = dataSlice(op.initCode, 20);
  }
  if (dataLength(op.paymasterAndData) > 0) {
    rpc.paymaster = dataSlice(op.paymasterAndData, 0, 20);
    rpc.paymasterVerificationGasLimit = toBeHex(BigInt(dataSlice(op.paymasterAndData, 20, 36)));
    rpc.paymasterPostOpGasLimit = toBeHex(BigInt(dataSlice(op.paymasterAndData, 36, 52)));
    rpc.paymasterData = dataSlice(op.paymasterAndData, 52);
  }
  return rpc;
}
