import type { JsonRpcProvider } from "ethers";
import type { Fees } from "../transactions/userOpBuilder";

/** Priority fee used when the node has no eth_maxPriorityFeePerGas. */
const FALLBACK_PRIORITY_FEE = 1_000_000_000n;

/**
 * EIP-1559 fees for the next blocks: the node's suggested priority fee, and a max fee of twice the latest base
 * fee plus it, which stays valid through six full blocks of base-fee increases.
 */
export async function currentFees(provider: JsonRpcProvider): Promise<Fees> {
  const [block, priority] = await Promise.all([
    provider.send("eth_getBlockByNumber", ["latest", false]) as Promise<{ baseFeePerGas?: string }>,
    (provider.send("eth_maxPriorityFeePerGas", []) as Promise<string>).then(BigInt, () => FALLBACK_PRIORITY_FEE),
  ]);
  const baseFee = block.baseFeePerGas === undefined ? 0n : BigInt(block.baseFeePerGas);
  return { maxFeePerGas: 2n * baseFee + priority, maxPriorityFeePerGas: priority };
}

/** Fees of a replacement transaction: at least `percent` above the stuck one's (nodes require +10 %), or current. */
export function bumpedFees(stuck: Fees, current: Fees, percent: bigint): Fees {
  const bump = (value: bigint) => (value * (100n + percent)) / 100n + 1n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  return {
    maxFeePerGas: max(bump(stuck.maxFeePerGas), current.maxFeePerGas),
    maxPriorityFeePerGas: max(bump(stuck.maxPriorityFeePerGas), current.maxPriorityFeePerGas),
  };
}
