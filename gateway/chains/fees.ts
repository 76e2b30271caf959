import type { JsonRpcProvider } from "ethers";

/** EIP-1559 fees of an operation, and of the bundle or relayer transaction carrying it. */
export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

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

/** How far above the current fees a replacement may go: bumps stop there instead of compounding without end. */
const MAX_FEE_MULTIPLE = 3n;

/**
 * Fees of a replacement transaction: at least `percent` above the stuck one's (nodes require +10 %), or current;
 * undefined when that would pass MAX_FEE_MULTIPLE × the current fees (the stuck one then waits, or is dropped).
 */
export function bumpedFees(stuck: Fees, current: Fees, percent: bigint): Fees | undefined {
  const bump = (value: bigint) => (value * (100n + percent)) / 100n + 1n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const fees = {
    maxFeePerGas: max(bump(stuck.maxFeePerGas), current.maxFeePerGas),
    maxPriorityFeePerGas: max(bump(stuck.maxPriorityFeePerGas), current.maxPriorityFeePerGas),
  };
  if (fees.maxFeePerGas > current.maxFeePerGas * MAX_FEE_MULTIPLE) return undefined;
  return fees;
}
