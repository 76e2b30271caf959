import type { Bundle } from "../../transactions/bundle";
import type { WorkerContext } from "../workerContext";
import type { RelayerReceipt } from "../workKind";

/**
 * Where a pending bundle stands: mined with enough blocks on top, or not yet; dropped (its relayer nonce used by
 * another transaction); stuck (not mined after the stuck delay); lost (the node holds it no more); or pending.
 */
export type BundleState =
  | { readonly status: "mined"; readonly receipt: RelayerReceipt }
  | { readonly status: "unconfirmed" | "dropped" | "stuck" | "lost" | "pending" };

/** Looks up a pending bundle on chain: its receipt, its relayer nonce, its age. */
export async function trackBundle(context: WorkerContext, bundle: Bundle, stuckAfterMs: number): Promise<BundleState> {
  const { provider } = context.chain;
  // The newest version (the one mined, unless a replacement came late) is asked for alongside the relayer's mined
  // nonce. If that nonce is used and no receipt was seen, every version is asked again: the receipts read after
  // the nonce see any version of ours that was mined, so "nonce used and no receipt" then really means another
  // transaction used it.
  const hashes = [...bundle.txHashes].reverse();
  const [count, newest] = await Promise.all([
    provider.send("eth_getTransactionCount", [bundle.relayer, "latest"]) as Promise<string>,
    provider.send("eth_getTransactionReceipt", [hashes[0]]) as Promise<RelayerReceipt | null>,
  ]);
  const minedNonce = Number(count);
  let receipt = newest;
  for (const hash of minedNonce > bundle.nonce && !receipt ? hashes : []) {
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
  if (context.clock().getTime() - Date.parse(bundle.sentAt) >= stuckAfterMs) return { status: "stuck" };
  const known = await provider.send("eth_getTransactionByHash", [bundle.txHashes.at(-1)]);
  return { status: known ? "pending" : "lost" };
}
