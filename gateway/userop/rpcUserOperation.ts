import { dataLength, dataSlice, getAddress, toQuantity } from "ethers";
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

/** The uint128 in bytes [from, from + 16) of packed data, as a quantity. */
const uint128At = (data: string, from: number): string => toQuantity(dataSlice(data, from, from + 16));

/**
 * Unpacks a PackedUserOperation into the bundler RPC form. Numbers are JSON-RPC quantities, hex without leading
 * zeros ("0x0", "0x493e0"), not toBeHex's whole bytes ("0x00", "0x0493e0"): bundlers that parse quantities
 * strictly refuse those as invalid params.
 */
export function toRpcUserOperation(op: PackedUserOperation): RpcUserOperation {
  const rpc: RpcUserOperation = {
    sender: op.sender,
    nonce: toQuantity(op.nonce),
    callData: op.callData,
    verificationGasLimit: uint128At(op.accountGasLimits, 0),
    callGasLimit: uint128At(op.accountGasLimits, 16),
    preVerificationGas: toQuantity(op.preVerificationGas),
    maxPriorityFeePerGas: uint128At(op.gasFees, 0),
    maxFeePerGas: uint128At(op.gasFees, 16),
    signature: op.signature,
  };
  if (dataLength(op.initCode) > 0) {
    rpc.factory = getAddress(dataSlice(op.initCode, 0, 20));
    rpc.factoryData = dataSlice(op.initCode, 20);
  }
  if (dataLength(op.paymasterAndData) > 0) {
    rpc.paymaster = getAddress(dataSlice(op.paymasterAndData, 0, 20));
    rpc.paymasterVerificationGasLimit = uint128At(op.paymasterAndData, 20);
    rpc.paymasterPostOpGasLimit = uint128At(op.paymasterAndData, 36);
    rpc.paymasterData = dataSlice(op.paymasterAndData, 52);
  }
  return rpc;
}
