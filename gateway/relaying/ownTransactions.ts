import { type JsonRpcProvider, toBeHex } from "ethers";

/** Blocks after a simulation that are looked through for foreign transactions; past this it is checked again. */
const MAX_OWN_BLOCKS = 4;
const KEPT = 256;

/**
 * What a transaction of the relayer ran: a `bundle` is handleOps, whose operations' calls run inside the EntryPoint
 * (its reentrancy guard keeps them from running any other operation); a `safe` relay runs an app's calls outside
 * it, which may call handleOps with any operation they have seen, using its nonce.
 */
export type OwnKind = "bundle" | "safe";

/**
 * The latest transactions this worker broadcast, and whether the blocks since some block hold only them: the
 * ground for skipping a re-check whose answer cannot have changed.
 */
export class OwnTransactions {
  private readonly kinds = new Map<string, OwnKind>();
  /** Those of them seen mined with success. */
  private readonly succeeded = new Set<string>();

  /** Remembers a broadcast transaction (the oldest are forgotten past a few hundred). */
  add(hash: string, kind: OwnKind): void {
    this.kinds.delete(hash);
    this.kinds.set(hash, kind);
    if (this.kinds.size > KEPT) {
      const oldest = this.kinds.keys().next().value!;
      this.kinds.delete(oldest);
      this.succeeded.delete(oldest);
    }
  }

  /** What a remembered transaction of ours ran, if it is remembered. */
  kindOf(hash: string): OwnKind | undefined {
    return this.kinds.get(hash);
  }

  /** Forgets a transaction: a bundle of ours that reverted is no ground to skip a check. */
  forget(hash: string): void {
    this.kinds.delete(hash);
    this.succeeded.delete(hash);
  }

  /**
   * Whether every block after `since` (a few at most) holds only transactions of ours of the `allowed` kinds, each
   * mined with success.
   */
  async onlySince(provider: JsonRpcProvider, since: number, allowed: readonly OwnKind[]): Promise<boolean> {
    const latest = Number(await provider.send("eth_blockNumber", []));
    if (latest - since > MAX_OWN_BLOCKS) return false;
    const mined: string[] = [];
    for (let number = since + 1; number <= latest; number++) {
      const block: { transactions: string[] } | null = await provider.send("eth_getBlockByNumber", [
        toBeHex(number),
        false,
      ]);
      if (!block) return false;
      for (const hash of block.transactions) {
        const kind = this.kinds.get(hash);
        if (kind === undefined || !allowed.includes(kind)) return false;
      }
      mined.push(...block.transactions);
    }
    // None of ours reverted: a revert may come again, so what follows it is checked against the chain (our pending
    // bundles are settled, and a reverted one forgotten, only once per poll interval; more may be sent meanwhile).
    const unknown = mined.filter((hash) => !this.succeeded.has(hash));
    const receipts: ({ status: string } | null)[] = await Promise.all(
      unknown.map((hash) => provider.send("eth_getTransactionReceipt", [hash])),
    );
    for (const [i, receipt] of receipts.entries()) {
      if (receipt?.status !== "0x1") return false;
      this.succeeded.add(unknown[i]!);
    }
    return true;
  }
}
