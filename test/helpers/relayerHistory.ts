import type { Provider } from "ethers";

/** Hashes of the transactions `from` sent that reverted on chain (every block of the local chain is read). */
export async function revertedTransactionsOf(provider: Provider, from: string): Promise<string[]> {
  const reverted: string[] = [];
  const latest = await provider.getBlockNumber();
  for (let number = 1; number <= latest; number++) {
    const block = await provider.getBlock(number, true);
    for (const tx of block?.prefetchedTransactions ?? []) {
      if (tx.from.toLowerCase() !== from.toLowerCase()) continue;
      if ((await provider.getTransactionReceipt(tx.hash))?.status === 0) reverted.push(tx.hash);
    }
  }
  return reverted;
}
