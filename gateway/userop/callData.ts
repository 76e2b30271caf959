import { Interface } from "ethers";
import type { AccountType } from "../identity/walletAddress";
import type { TxCall } from "../transactions/txRecord";

const kernel = new Interface([
  "function execute(address target, uint256 value, bytes data, uint8 operation)",
  "function executeBatch(tuple(address target, uint256 value, bytes data, uint8 operation)[] calls)",
]);
const base = new Interface([
  "function execute(address target, uint256 value, bytes data)",
  "function executeBatch(address[] targets, uint256[] values, bytes[] datas)",
]);
const factory = new Interface(["function createAccount(bytes32 salt) returns (address)"]);

/** KernelAccount.Operation */
const CALL = 0;
const DELEGATECALL = 1;

const EXECUTE = kernel.getFunction("execute")!.selector.slice(2);
const EXECUTE_BATCH = kernel.getFunction("executeBatch")!.selector.slice(2);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
const WORD_HEX = 64;
const MAX_UINT256 = (1n << 256n) - 1n;

/** A 32-byte ABI word of an unsigned integer, in hex without 0x. */
function uintWord(value: bigint | number): string {
  if (typeof value === "bigint" && (value < 0n || value > MAX_UINT256)) throw new RangeError(`not a uint256: ${value}`);
  return value.toString(16).padStart(WORD_HEX, "0");
}

/** An address as an ABI word. */
function addressWord(address: string): string {
  if (!ADDRESS.test(address)) throw new TypeError(`not an address: ${address}`);
  return address.slice(2).toLowerCase().padStart(WORD_HEX, "0");
}

/** `bytes` as its ABI tail: the length word, then the bytes padded right to a whole word. */
function bytesTail(data: string): string {
  if (!BYTES.test(data)) throw new TypeError("call data is not hex bytes");
  const hex = data.slice(2).toLowerCase();
  const padded = Math.ceil(hex.length / WORD_HEX) * WORD_HEX;
  return uintWord(hex.length / 2) + hex.padEnd(padded, "0");
}

/** One (target, value, data, operation) as its ABI encoding: four head words, `data`'s offset being the fourth word's end. */
function kernelCall(call: TxCall, operation: number): string {
  return addressWord(call.to) + uintWord(call.value) + uintWord(4 * 32) + uintWord(operation) + bytesTail(call.data);
}

/**
 * Kernel's `execute` or `executeBatch` call data, ABI-encoded here directly: every request is encoded at acceptance
 * (its size bound) and again for its operation, and ethers' generic coder cost more per request than the rest of
 * building its operation. Tests hold it equal to ethers' encoding.
 */
function kernelCallData(calls: readonly TxCall[], operation: number): string {
  if (calls.length === 1) return `0x${EXECUTE}${kernelCall(calls[0]!, operation)}`;
  // executeBatch(Call[]): the array's offset, its length, each element's offset from the heads' start, the elements.
  const elements = calls.map((call) => kernelCall(call, operation));
  const heads: string[] = [];
  let offset = calls.length * 32;
  for (const element of elements) {
    heads.push(uintWord(offset));
    offset += element.length / 2;
  }
  return `0x${EXECUTE_BATCH}${uintWord(32)}${uintWord(calls.length)}${heads.join("")}${elements.join("")}`;
}

/**
 * The wallet call data of a request: `execute` for one call, `executeBatch` (all or nothing) for several.
 * With `delegatecall` every call of a Kernel request is a DELEGATECALL (the target's code runs as the wallet,
 * on its storage and balance); base wallets have no delegatecall.
 */
export function walletCallData(type: AccountType, calls: readonly TxCall[], delegatecall: boolean): string {
  if (calls.length === 0) throw new RangeError("a request has at least one call");
  if (type === "base") {
    if (delegatecall) throw new RangeError("base wallets make no delegatecall");
    const [only] = calls;
    return calls.length === 1
      ? base.encodeFunctionData("execute", [only!.to, only!.value, only!.data])
      : base.encodeFunctionData("executeBatch", [
          calls.map((c) => c.to),
          calls.map((c) => c.value),
          calls.map((c) => c.data),
        ]);
  }
  return kernelCallData(calls, delegatecall ? DELEGATECALL : CALL);
}

/** The factory call that deploys a wallet: `createAccount(salt)`. */
export const createAccountCallData = (salt: string): string => factory.encodeFunctionData("createAccount", [salt]);
