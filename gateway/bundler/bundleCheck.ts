import { toBeHex } from "ethers";
import { revertDataOf } from "../chains/revertData";
import type { BuiltUserOp, TxRecord } from "../storage/transactionsRepository";
import { type OperationFailure, failureFromReason } from "../transactions/failureCodes";
import { decodeEntryPointError } from "../userop/entryPoint";
import { encodeHandleOps } from "../userop/opsAbi";
import { operationGas } from "../userop/operationGas";
import { type WorkerContext, outcomeOfFailure } from "./workerContext";

/** Gas of handleOps itself beyond its operations' limits (the transaction's 21,000, the loop, the refund). */
const BUNDLE_GAS_OVERHEAD = 100_000n;

/** An operation the node cannot run in the bundle's check although it runs the bundle without it. */
const CHECK_FAILED: OperationFailure = {
  code: "SIMULATION_FAILED",
  action: "retry",
  message: "the node could not run this operation in a bundle (no answer, or an error without revert data)",
};

/** The gas limit of a bundle of `ops`: the sum of their limits and handleOps's own. */
export const bundleGasLimit = (ops: readonly BuiltUserOp[]): bigint =>
  ops.reduce((sum, op) => sum + operationGas(op.userOp), BUNDLE_GAS_OVERHEAD);

/**
 * Runs the bundle as the chain will (eth_call of handleOps from the relayer, at the operations' real fees, so the
 * paymaster deposit is checked too) and returns the operations to send. An operation the EntryPoint rejects
 * (FailedOp) is taken out and settled with its code. When the call fails with no answer about any one operation
 * (no revert data, a node error, a timeout) while the node runs an empty bundle, the bundle is halved until the
 * operations that fail alone are found; only they are charged an attempt (SIMULATION_FAILED). Operations that
 * pass but are left out of what is sent wait, untouched, for the next bundle.
 */
export async function checkBundle(
  context: WorkerContext,
  relayer: string,
  ops: readonly BuiltUserOp[],
  picked: readonly TxRecord[],
): Promise<BuiltUserOp[]> {
  const call = (group: readonly BuiltUserOp[]) =>
    context.chain.provider.send("eth_call", [
      {
        from: relayer,
        to: context.entryPoint,
        data: encodeHandleOps(
          group.map((op) => op.userOp),
          relayer,
        ),
        gas: toBeHex(bundleGasLimit(group)),
      },
      "latest",
    ]) as Promise<string>;
  const failureOf = async (group: readonly BuiltUserOp[]) => call(group).then(() => undefined, (error) => error);
  const settle = async (op: BuiltUserOp, failure: OperationFailure) => {
    const tx = picked.find((t) => t.id === op.txId)!;
    await context.repository.settle(tx.id, await outcomeOfFailure(context, tx, failure));
  };

  const check = async (start: readonly BuiltUserOp[]): Promise<BuiltUserOp[]> => {
    const group = [...start];
    while (group.length > 0) {
      const error: unknown = await failureOf(group);
      if (error === undefined) return group;
      const decoded = decodeEntryPointError(revertDataOf(error) ?? "0x");
      if (decoded?.name.startsWith("FailedOp")) {
        const [rejected] = group.splice(Number(decoded.args[0]), 1);
        await settle(rejected!, failureFromReason(String(decoded.args[1])));
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
