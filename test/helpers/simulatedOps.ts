import type { Result } from "ethers";
import { BUNDLE_SIMULATOR_ADDRESS } from "../../gateway/userop/bundleSimulatorCode";
import { bundleSimulatorInterface } from "../../gateway/userop/entryPoint";
import type { PackedUserOperation } from "../../gateway/userop/packedUserOperation";

/** One JSON-RPC request as a node (or a proxy in front of it) saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly params: readonly unknown[];
}

/**
 * The UserOperations exactly as the service put them into its simulation calls (eth_call of BundleSimulator), in
 * the order seen: what anyone watching the node's calls holds.
 */
export function simulatedOps(seen: readonly SeenRequest[]): PackedUserOperation[] {
  return seen.flatMap(({ method, params }) => {
    const call = params[0] as { to?: string; data?: string } | undefined;
    if (method !== "eth_call" || call?.to?.toLowerCase() !== BUNDLE_SIMULATOR_ADDRESS.toLowerCase()) return [];
    const [, ops] = bundleSimulatorInterface.decodeFunctionData("simulateBundle", call.data!);
    return (ops as Result).map((op: Result) => op.toObject() as PackedUserOperation);
  });
}
