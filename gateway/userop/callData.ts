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
  const operation = delegatecall ? DELEGATECALL : CALL;
  const [only] = calls;
  return calls.length === 1
    ? kernel.encodeFunctionData("execute", [only!.to, only!.value, only!.data, operation])
    : kernel.encodeFunctionData("executeBatch", [calls.map((c) => [c.to, c.value, c.data, operation])]);
}

/** The factory call that deploys a wallet: `createAccount(salt)`. */
export const createAccountCallData = (salt: string): string => factory.encodeFunctionData("createAccount", [salt]);
