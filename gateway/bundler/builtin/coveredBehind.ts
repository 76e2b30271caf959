import { entryPointInterface } from "../../userop/entryPoint";
import type { OperationContext } from "../../userop/bundling/operationContext";
import type { Reserved } from "./inFlight";

/**
 * Whether a bundle sent behind pending ones is covered: the relayer's balance pays every pending bundle's gas and
 * this one's at their fee caps, and the paymaster's deposit every prefund, theirs and this one's. The pre-broadcast
 * check ran against the latest block, which holds none of the pending bundles; without this, a later bundle would be
 * left unminable by the relayer's balance, or revert as a whole on the paymaster's deposit (AA31), once the earlier
 * ones had spent what the check saw. A deposit or balance short now waits until the pending bundles are settled.
 */
export async function coveredBehind(
  context: OperationContext,
  relayer: string,
  reserved: Reserved,
  next: { readonly relayerWei: bigint; readonly paymasterWei: bigint },
): Promise<boolean> {
  const { provider } = context.chain;
  const [balance, deposit] = await Promise.all([
    provider.send("eth_getBalance", [relayer, "latest"]) as Promise<string>,
    next.paymasterWei === 0n
      ? Promise.resolve("0x0")
      : (provider.send("eth_call", [
          {
            to: context.entryPoint,
            data: entryPointInterface.encodeFunctionData("balanceOf", [context.builder.paymaster]),
          },
          "latest",
        ]) as Promise<string>),
  ]);
  if (BigInt(balance) < reserved.relayerWei + next.relayerWei) return false;
  return next.paymasterWei === 0n || BigInt(deposit) >= reserved.paymasterWei + next.paymasterWei;
}
