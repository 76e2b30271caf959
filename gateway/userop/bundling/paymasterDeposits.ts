import { getAddress } from "ethers";
import type { PackedUserOperation } from "../packedUserOperation";
import { entryPointInterface } from "../entryPoint";
import type { OperationContext } from "./operationContext";

/** The paymasters `ops` name (the first 20 bytes of paymasterAndData), each once. */
export function paymastersOf(ops: readonly Pick<PackedUserOperation, "paymasterAndData">[]): string[] {
  const found = new Set<string>();
  for (const op of ops) if (op.paymasterAndData.length >= 42) found.add(getAddress(op.paymasterAndData.slice(0, 42)));
  return [...found];
}

/**
 * Whether every one of `paymasters` has at least `needed` wei deposited at the EntryPoint. Counted against each one
 * in full, the sum of the prefunds is a bound whichever of them (the SponsorPaymaster for wallets on 2.0.0, the
 * CustodyPaymaster for wallets on 2.1) pays which operation: never short, at worst waiting for a top-up sooner.
 */
export async function depositsCover(
  context: OperationContext,
  paymasters: readonly string[],
  needed: bigint,
): Promise<boolean> {
  if (needed === 0n || paymasters.length === 0) return true;
  const deposits = await Promise.all(
    paymasters.map(
      (paymaster) =>
        context.chain.provider.send("eth_call", [
          { to: context.entryPoint, data: entryPointInterface.encodeFunctionData("balanceOf", [paymaster]) },
          "latest",
        ]) as Promise<string>,
    ),
  );
  return deposits.every((deposit) => BigInt(deposit) >= needed);
}
