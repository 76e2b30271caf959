import type { Bundle } from "../../transactions/bundle";
import type { OperationContext } from "../../userop/bundling/operationContext";
import type { RelayerReceipt } from "../../relaying/workKind";

/**
 * Where a pending bundle stands: mined with enough blocks on top, or not yet; dropped (its relayer nonce used by
 * another transaction); stuck (not mined after the stuck delay); lost (the node holds it no more); or pending.
 */
export type BundleState =
  | { readonly status: "mined"; readonly receipt: RelayerReceipt }
  | { readonly status: "unconfirmed" | "dropped" | "stuck" | "lost" | "pending" };

/** What tracking knows of a bundle's relayer before looking the bundle up. */
export interface RelayerStanding {
  /** The relayer's mined nonce ("latest" transaction count), read before the bundle's receipts. */
  readonly minedNonce: number;
  /**
   * Whether the bundle is next in line: every nonce from the mined one up to its own is held by a pending bundle of
   * ours. One behind a gap waits for the gap to be filled, not for higher fees.
   */
  readonly inLine: boolean;
}

/** Looks up a pending bundle on chain: its receipt if its nonce is used, else its age and whether the node holds it. */
export async function trackBundle(
  context: OperationContext,
  bundle: Bundle,
  stuckAfterMs: number,
  standing: RelayerStanding,
): Promise<BundleState> {
  const { provider } = context.chain;
  const { minedNonce } = standing;
  // The nonce was read before any receipt: if it is used, the receipts read now see any version of ours that was
  // mined, so "nonce used and no receipt" really means another transaction used it. Newest version first (the one
  // mined, unless a replacement came late). A nonce not used yet has no receipt to ask for.
  let receipt: RelayerReceipt | null = null;
  for (const hash of minedNonce > bundle.nonce ? [...bundle.txHashes].reverse() : []) {
    receipt = await provider.send("eth_getTransactionReceipt", [hash]);
    if (receipt) break;
  }
  if (receipt) {
    if (context.confirmations > 1) {
      const latest = Number(await provider.send("eth_blockNumber", []));
      if (latest - Number(receipt.blockNumber) + 1 < context.confirmations) return { status: "unconfirmed" };
    }
    return { status: "mined", receipt };
  }
  if (minedNonce > bundle.nonce) return { status: "dropped" };
  if (standing.inLine && context.clock().getTime() - Date.parse(bundle.sentAt) >= stuckAfterMs) {
    return { status: "stuck" };
  }
  const known = await provider.send("eth_getTransactionByHash", [bundle.txHashes.at(-1)]);
  return { status: known ? "pending" : "lost" };
}

/** The relayer's mined nonce ("latest" transaction count). */
export async function minedNonceOf(context: OperationContext, relayer: string): Promise<number> {
  return Number(await context.chain.provider.send("eth_getTransactionCount", [relayer, "latest"]));
}
