import { toBeHex } from "ethers";
import { revertDataOf } from "../../chains/revertData";
import type { BuiltUserOp } from "../../transactions/builtOp";
import type { WalletTxRecord } from "../../transactions/txRecord";
import { type OperationFailure, failureOfOperation } from "../failureCodes";
import { decodeEntryPointError } from "../entryPoint";
import { encodeHandleOps } from "../opsAbi";
import { bundledGas } from "../operationGas";
import type { OperationContext } from "./operationContext";
import { outcomeOfFailure } from "./operationOutcomes";

/** Gas of handleOps itself beyond its operations' limits (the transaction's 21,000, the loop, the refund). */
const BUNDLE_GAS_OVERHEAD = 100_000n;

/** An operation the node cannot run in the bundle's check although it runs the bundle without it. */
const CHECK_FAILED: OperationFailure = {
  code: "SIMULATION_FAILED",
  action: "retry",
  message: "the node could not run this operation in a bundle (no answer, or an error without revert data)",
};

/** EIP-7623 (Prague): a transaction pays at least 10 gas per call-data token (a zero byte 1 token, others 4). */
const FLOOR_GAS_PER_TOKEN = 10n;
const TRANSACTION_GAS = 21_000n;

/**
 * The gas limit of a bundle of `ops` whose handleOps call data is `data`: the sum of their limits and handleOps's
 * own (without what their preVerificationGas holds for an L1 data fee, which no code burns: bundledGas), and never
 * under the call-data floor (nodes refuse a transaction whose limit is below it).
 */
export function bundleGasLimit(ops: readonly BuiltUserOp[], data: string): bigint {
  const limits = ops.reduce((sum, op) => sum + bundledGas(op.userOp), BUNDLE_GAS_OVERHEAD);
  let tokens = 0n;
  for (let i = 2; i < data.length; i += 2) tokens += data[i] === "0" && data[i + 1] === "0" ? 1n : 4n;
  const floor = TRANSACTION_GAS + FLOOR_GAS_PER_TOKEN * tokens;
  return limits > floor ? limits : floor;
}

/**
 * An upper bound of bundleGasLimit for operations whose limits (bundledGas) sum to `opsGas` and whose call data is
 * `bytes` in all, without encoding them: a bundle being filled adds each operation's share once.
 */
export function bundleGasBound(opsGas: bigint, bytes: number): bigint {
  const limits = BUNDLE_GAS_OVERHEAD + opsGas;
  const floor = TRANSACTION_GAS + FLOOR_GAS_PER_TOKEN * 4n * BigInt(bytes + 4 + 32 * 4);
  return limits > floor ? limits : floor;
}

/**
 * Runs the bundle as the chain will (eth_call of handleOps from the relayer, at the operations' real fees, so the
 * paymaster deposit is checked too) and returns the operations to send. An operation the EntryPoint rejects
 * (FailedOp) is taken out and settled with its code. When the call fails with no answer about any one operation
 * (no revert data, a node error, a timeout) while the node runs an empty bundle, the bundle is halved until the
 * operations that fail alone are found; only they are charged an attempt (SIMULATION_FAILED). Operations that
 * pass but are left out of what is sent wait, untouched, for the next bundle.
 */
export async function checkBundle(
  context: OperationContext,
  relayer: string,
  ops: readonly BuiltUserOp[],
  picked: readonly WalletTxRecord[],
): Promise<BuiltUserOp[]> {
  const call = (group: readonly BuiltUserOp[]) => {
    const data = encodeHandleOps(
      group.map((op) => op.userOp),
      relayer,
    );
    return context.chain.provider.send("eth_call", [
      { from: relayer, to: context.entryPoint, data, gas: toBeHex(bundleGasLimit(group, data)) },
      "latest",
    ]) as Promise<string>;
  };
  const failureOf = async (group: readonly BuiltUserOp[]) =>
    call(group).then(
      () => undefined,
      (error) => error,
    );
  const settle = async (op: BuiltUserOp, failure: OperationFailure) => {
    const tx = picked.find((t) => t.id === op.txId)!;
    // The node saw this real, signed build in the check's eth_call, and anyone watching it could still execute it
    // until its sponsorship ends: a final failure is decided only after that, as for a build that was sent.
    await context.repository.settle(tx.id, await outcomeOfFailure(context, { ...tx, userOp: op.userOp }, failure));
  };

  const check = async (start: readonly BuiltUserOp[]): Promise<BuiltUserOp[]> => {
    const group = [...start];
    while (group.length > 0) {
      const error: unknown = await failureOf(group);
      if (error === undefined) return group;
      const decoded = decodeEntryPointError(revertDataOf(error) ?? "0x");
      if (decoded?.name.startsWith("FailedOp")) {
        const [rejected] = group.splice(Number(decoded.args[0]), 1);
        const paymaster = rejected!.userOp.paymasterAndData.slice(0, 42);
        await settle(
          rejected!,
          failureOfOperation(String(decoded.args[1]), paymaster, context.builder.custodyPaymaster),
        );
        continue;
      }
      // No answer about any operation: the node's trouble (it fails an empty bundle too), or one of these.
      if ((await failureOf([])) !== undefined) throw error;
      if (group.length === 1) {
        context.logger.warn({ tx: group[0]!.txId }, "operation fails the bundle check alone; charged an attempt");
        await settle(group[0]!, CHECK_FAILED);
        return [];
      }
      const middle = Math.ceil(group.length / 2);
      const left = await check(group.slice(0, middle));
      const right = await check(group.slice(middle));
      if (left.length === 0 || right.length === 0) return left.length > 0 ? left : right;
      // Each half runs; together they may still not (their sum): then the first goes now, the second next.
      const both = [...left, ...right];
      return (await failureOf(both)) === undefined ? both : left;
    }
    return [];
  };
  return check(ops);
}
