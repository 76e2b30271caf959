import type { OperationContext } from "../../userop/bundling/operationContext";
import { depositsCover } from "../../userop/bundling/paymasterDeposits";
import type { Reserved } from "./inFlight";

/**
 * Whether a bundle sent behind pending ones is covered: the relayer's balance pays every pending bundle's gas and
 * this one's at their fee caps, and the deposit of each paymaster this one uses every prefund, theirs and this one's. The pre-broadcast
 * check ran against the latest block, which holds none of the pending bundles; without this, a later bundle would be
 * left unminable by the relayer's balance, or revert as a whole on the paymaster's deposit (AA31), once the earlier
 * ones had spent what the check saw. A deposit or balance short now waits until the pending bundles are settled.
 */
export async function coveredBehind(
  context: OperationContext,
  relayer: string,
  reserved: Reserved,
  next: { readonly relayerWei: bigint; readonly paymasterWei: bigint; readonly paymasters: readonly string[] },
): Promise<boolean> {
  const [balance, deposits] = await Promise.all([
    context.chain.provider.send("eth_getBalance", [relayer, "latest"]) as Promise<string>,
    depositsCover(context, next.paymasters, next.paymasterWei === 0n ? 0n : reserved.paymasterWei + next.paymasterWei),
  ]);
  return BigInt(balance) >= reserved.relayerWei + next.relayerWei && deposits;
}
