import { entryPointInterface, bundleSimulatorInterface } from "./entryPoint";
import type { PackedUserOperation } from "./packedUserOperation";
import { hexToBytes, hexWord, uintWord } from "./words";

/**
 * ABI coding of bundles written out: `handleOps(PackedUserOperation[], address)` and
 * `simulateBundle(address, PackedUserOperation[])` carry tens of kilobytes per bundle, which ethers' generic coder
 * encodes at ~0.5 ms per operation. The layout is the ABI's: a dynamic array of dynamic tuples, each tuple a
 * 9-word head (4 offsets for its `bytes` fields) and their length-prefixed, zero-padded tails. Tests compare it
 * with ethers on random operations.
 */

const HANDLE_OPS = hexToBytes(entryPointInterface.getFunction("handleOps")!.selector);
const SIMULATE_BUNDLE = hexToBytes(bundleSimulatorInterface.getFunction("simulateBundle")!.selector);
const TUPLE_HEAD_BYTES = 9 * 32;

/** `bytes` as its ABI tail: length word, then the bytes right-padded to whole words. */
function bytesTail(hex: string): Buffer {
  const bytes = hexToBytes(hex);
  const padded = Buffer.alloc(Math.ceil(bytes.length / 32) * 32);
  bytes.copy(padded);
  return Buffer.concat([uintWord(bytes.length), padded]);
}

/** One PackedUserOperation tuple. */
function encodeOp(op: PackedUserOperation): Buffer {
  const tails = [op.initCode, op.callData, op.paymasterAndData, op.signature].map(bytesTail);
  const offsets: number[] = [];
  let offset = TUPLE_HEAD_BYTES;
  for (const tail of tails) {
    offsets.push(offset);
    offset += tail.length;
  }
  return Buffer.concat([
    hexWord(op.sender),
    uintWord(op.nonce),
    uintWord(offsets[0]!),
    uintWord(offsets[1]!),
    hexWord(op.accountGasLimits),
    uintWord(op.preVerificationGas),
    hexWord(op.gasFees),
    uintWord(offsets[2]!),
    uintWord(offsets[3]!),
    ...tails,
  ]);
}

/** A PackedUserOperation[]: length, one offset per element (from the first offset word), the elements. */
function encodeOps(ops: readonly PackedUserOperation[]): Buffer {
  const elements = ops.map(encodeOp);
  const heads: Buffer[] = [];
  let offset = ops.length * 32;
  for (const element of elements) {
    heads.push(uintWord(offset));
    offset += element.length;
  }
  return Buffer.concat([uintWord(ops.length), ...heads, ...elements]);
}

/** Call data of `EntryPoint.handleOps(ops, beneficiary)`. */
export const encodeHandleOps = (ops: readonly PackedUserOperation[], beneficiary: string): string =>
  `0x${Buffer.concat([HANDLE_OPS, uintWord(64), hexWord(beneficiary), encodeOps(ops)]).toString("hex")}`;

/** Call data of `BundleSimulator.simulateBundle(entryPoint, ops, gasPerOp)`. */
export const encodeSimulateBundle = (
  entryPoint: string,
  ops: readonly PackedUserOperation[],
  gasPerOp: bigint,
): string =>
  `0x${Buffer.concat([SIMULATE_BUNDLE, hexWord(entryPoint), uintWord(96), uintWord(gasPerOp), encodeOps(ops)]).toString("hex")}`;

/**
 * What simulateHandleOp returned for one operation: its ExecutionResult's leading words, its revert data, or
 * nothing (not simulated: the call's gas ran low before it).
 */
export type SimulationOutcome =
  | {
      readonly kind: "result";
      readonly preOpGas: bigint;
      readonly paid: bigint;
      readonly accountValidationData: bigint;
      readonly paymasterValidationData: bigint;
    }
  | { readonly kind: "reverted"; readonly revertData: string }
  | { readonly kind: "skipped" };

/** Decodes simulateBundle's `(bool simulated, bool success, bytes data)[]`, reading each ExecutionResult's first words. */
export function decodeSimulateBundle(answer: string): SimulationOutcome[] {
  const bytes = hexToBytes(answer);
  const readUint = (at: number): bigint => {
    if (at + 32 > bytes.length) throw new RangeError("malformed simulateBundle answer");
    return BigInt(`0x${bytes.subarray(at, at + 32).toString("hex")}`);
  };
  const readIndex = (at: number): number => {
    const value = readUint(at);
    if (value > BigInt(bytes.length)) throw new RangeError("malformed simulateBundle answer");
    return Number(value);
  };
  const array = readIndex(0);
  const count = readIndex(array);
  const outcomes: SimulationOutcome[] = [];
  for (let i = 0; i < count; i++) {
    const element = array + 32 + readIndex(array + 32 + i * 32);
    if (readUint(element) !== 1n) {
      outcomes.push({ kind: "skipped" });
      continue;
    }
    const success = readUint(element + 32) === 1n;
    const data = element + readIndex(element + 64);
    const length = readIndex(data);
    const payload = bytes.subarray(data + 32, data + 32 + length);
    if (!success) {
      outcomes.push({ kind: "reverted", revertData: `0x${payload.toString("hex")}` });
      continue;
    }
    // abi.encode(ExecutionResult): an offset word (the struct has a bytes member), then its fields.
    if (payload.length < 32 * 5) throw new RangeError("malformed ExecutionResult");
    const word = (n: number) => BigInt(`0x${payload.subarray(32 + n * 32, 64 + n * 32).toString("hex")}`);
    outcomes.push({
      kind: "result",
      preOpGas: word(0),
      paid: word(1),
      accountValidationData: word(2),
      paymasterValidationData: word(3),
    });
  }
  return outcomes;
}
