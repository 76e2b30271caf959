import type { KeySigner } from "../../custody/keySigner";
import { safeInterface } from "../encoding/safeArtifacts";
import type { WorkerContext } from "../../relaying/workerContext";

/**
 * The operator key that owns `safe` now: the current one, or, while the operator rotates and the Safe's owner has not
 * been swapped yet, the key being replaced. Read from the Safe itself (getOwners), so a swap included by anyone counts
 * at once. Undefined when neither owns it (the Safe's owners were changed by its other owners).
 */
export async function operatorKeyOf(context: WorkerContext, safe: string): Promise<KeySigner | undefined> {
  const keys = [context.safeOperator, context.previousSafeOperator].filter((key) => key !== undefined);
  if (keys.length === 0) return undefined;
  const answer = (await context.chain.provider.send("eth_call", [
    { to: safe, data: safeInterface.encodeFunctionData("getOwners") },
    "latest",
  ])) as string;
  const owners = (safeInterface.decodeFunctionResult("getOwners", answer)[0] as string[]).map((o) => o.toLowerCase());
  return keys.find((key) => owners.includes(key.address.toLowerCase()));
}
