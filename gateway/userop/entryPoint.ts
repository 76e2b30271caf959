import { Interface, dataSlice, getBytes, keccak256, toBeHex, zeroPadValue } from "ethers";
import simulations from "@account-abstraction/contracts/artifacts/EntryPointSimulations.json";
import type { PackedUserOperation } from "./packedUserOperation";

const OP_TUPLE =
  "tuple(address sender, uint256 nonce, bytes initCode, bytes callData, bytes32 accountGasLimits, " +
  "uint256 preVerificationGas, bytes32 gasFees, bytes paymasterAndData, bytes signature)";

/**
 * The parts of the ERC-4337 v0.7 EntryPoint (and its off-chain EntryPointSimulations) the service uses,
 * written out so the service needs no generated contract types.
 */
export const entryPointInterface = new Interface([
  `function handleOps(${OP_TUPLE}[] ops, address beneficiary)`,
  "function getNonce(address sender, uint192 key) view returns (uint256 nonce)",
  "function balanceOf(address account) view returns (uint256)",
  `function simulateHandleOp(${OP_TUPLE} op, address target, bytes targetCallData) returns ` +
    "(tuple(uint256 preOpGas, uint256 paid, uint256 accountValidationData, uint256 paymasterValidationData, " +
    "bool targetSuccess, bytes targetResult))",
  "event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, " +
    "uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
  "event UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)",
  "error FailedOp(uint256 opIndex, string reason)",
  "error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner)",
  "error PostOpReverted(bytes returnData)",
  "error SignatureValidationFailed(address aggregator)",
]);

/** The off-chain BundleSimulator (contracts/bundler/BundleSimulator.sol). */
export const bundleSimulatorInterface = new Interface([
  `function simulateBundle(address entryPoint, ${OP_TUPLE}[] ops, uint256 gasPerOp) returns ` +
    "(tuple(bool simulated, bool success, bytes data)[] outcomes)",
]);

/** Runtime code of EntryPointSimulations (npm artifact), placed at the EntryPoint's address by a state override. */
export const ENTRY_POINT_SIMULATIONS_CODE: string = simulations.deployedBytecode;

/** The tuple the EntryPoint's ABI takes for a PackedUserOperation. */
export const opTuple = (op: PackedUserOperation) => [
  op.sender,
  op.nonce,
  op.initCode,
  op.callData,
  op.accountGasLimits,
  op.preVerificationGas,
  op.gasFees,
  op.paymasterAndData,
  op.signature,
];

/**
 * The ERC-4337 nonce of a request: key = the first 192 bits of keccak256(request id), sequence 0. Each request
 * has its own nonce key, so every UserOperation ever built for it shares one single-use nonce: the EntryPoint
 * itself guarantees that at most one of them executes, whatever crashes or retries happen (design §1.4).
 */
export function requestNonce(requestId: string): bigint {
  const key = BigInt(dataSlice(keccak256(new TextEncoder().encode(requestId)), 0, 24));
  return key << 64n;
}

/** The 192-bit key of a nonce. */
export const nonceKey = (nonce: bigint): bigint => nonce >> 64n;

/** Validation data as the EntryPoint packs it: sigFailed / aggregator (160 bits), validUntil, validAfter (48 each). */
export function parseValidationData(data: bigint): { sigFailed: boolean; validUntil: number; validAfter: number } {
  const aggregator = data & ((1n << 160n) - 1n);
  return {
    sigFailed: aggregator === 1n,
    validUntil: Number((data >> 160n) & ((1n << 48n) - 1n)),
    validAfter: Number(data >> 208n),
  };
}

/** Hex of a uint256 as a 32-byte word (event topics). */
export const word = (value: bigint | string): string => zeroPadValue(toBeHex(value), 32);

/** Whether `data` is ABI revert data of one of the EntryPoint's errors; its decoded form if so. */
export function decodeEntryPointError(data: string): { name: string; args: readonly unknown[] } | undefined {
  if (getBytes(data).length < 4) return undefined;
  try {
    const parsed = entryPointInterface.parseError(data);
    return parsed ? { name: parsed.name, args: [...parsed.args] } : undefined;
  } catch {
    return undefined;
  }
}
