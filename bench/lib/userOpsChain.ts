import type { Provider } from "ethers";
import { entryPointInterface } from "../../gateway/userop/entryPoint";
import type { PackedUserOperation } from "../../gateway/userop/packedUserOperation";
import { UserOpsFailure } from "./userOpsLoad";

/** The handleOps bundles of a block range, as read from the chain. */
export interface ChainBundles {
  readonly bundles: number;
  /** UserOperationEvents the bundles emitted. */
  readonly ops: number;
  readonly txHashes: ReadonlySet<string>;
  /** Gas used by the bundles, in all. */
  readonly gasUsed: bigint;
  /** The operations each bundle carried, decoded from its handleOps call data, in bundle order. */
  readonly opsByBundle: readonly (readonly PackedUserOperation[])[];
}

const HANDLE_OPS = entryPointInterface.getFunction("handleOps")!.selector;
const USER_OPERATION_EVENT = entryPointInterface.getEvent("UserOperationEvent")!.topicHash;

/**
 * Counts the `EntryPoint.handleOps` transactions `relayer` sent in blocks `fromBlock`..`toBlock` and the operations
 * they executed (UserOperationEvent logs of their receipts). Throws if a bundle reverted.
 */
export async function chainBundles(
  provider: Provider,
  range: { fromBlock: number; toBlock: number },
  relayer: string,
  entryPoint: string,
): Promise<ChainBundles> {
  const txHashes = new Set<string>();
  let ops = 0;
  let gasUsed = 0n;
  const opsByBundle: PackedUserOperation[][] = [];
  for (let number = range.fromBlock; number <= range.toBlock; number++) {
    const block = await provider.getBlock(number, true);
    if (!block) throw new UserOpsFailure(`block ${number} not found`);
    for (const tx of block.prefetchedTransactions) {
      if (tx.from.toLowerCase() !== relayer.toLowerCase() || tx.to?.toLowerCase() !== entryPoint.toLowerCase()) {
        continue;
      }
      if (!tx.data.startsWith(HANDLE_OPS)) continue;
      const receipt = await provider.getTransactionReceipt(tx.hash);
      if (!receipt || receipt.status !== 1) throw new UserOpsFailure(`bundle ${tx.hash} reverted or has no receipt`);
      txHashes.add(tx.hash.toLowerCase());
      gasUsed += receipt.gasUsed;
      opsByBundle.push(decodeOps(tx.data));
      ops += receipt.logs.filter(
        (log) => log.address.toLowerCase() === entryPoint.toLowerCase() && log.topics[0] === USER_OPERATION_EVENT,
      ).length;
    }
  }
  return { bundles: txHashes.size, ops, txHashes, gasUsed, opsByBundle };
}

/** The operations of a handleOps call. */
function decodeOps(data: string): PackedUserOperation[] {
  const [ops] = entryPointInterface.decodeFunctionData("handleOps", data) as unknown as [PackedUserOperation[]];
  return ops.map((op) => ({
    sender: op.sender,
    nonce: op.nonce,
    initCode: op.initCode,
    callData: op.callData,
    accountGasLimits: op.accountGasLimits,
    preVerificationGas: op.preVerificationGas,
    gasFees: op.gasFees,
    paymasterAndData: op.paymasterAndData,
    signature: op.signature,
  }));
}
