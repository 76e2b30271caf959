import type { KeySigner } from "../../custody/keySigner";
import type { Bundle } from "../../transactions/bundle";
import { bumpedFees, currentFees } from "../../chains/fees";
import type { OperationContext } from "../../userop/bundling/operationContext";
import { relayerFieldsOf, signRelayerTransaction } from "./relayerTransaction";

/**
 * What to broadcast for a stuck bundle: the same transaction at the same relayer nonce with bumped fees, recorded
 * first; or the stuck one itself (to rebroadcast) when the relayer key changed since (the old key signs no more) or
 * the bump would pass the fee cap.
 */
export async function replaceBundle(
  context: OperationContext,
  relayer: KeySigner,
  bundle: Bundle,
  feeBumpPercent: bigint,
): Promise<Bundle> {
  const fees =
    bundle.relayer === relayer.address
      ? bumpedFees(bundle, await currentFees(context.chain.provider), feeBumpPercent)
      : undefined;
  if (!fees) return bundle;
  const previous = relayerFieldsOf(bundle.rawTx);
  const { rawTx, txHash } = await signRelayerTransaction(relayer, { ...previous, ...fees }, context.chain.name);
  const replaced = await context.repository.replaceBundleTx(bundle.id, { txHash, rawTx, ...fees });
  context.logger.warn({ bundle: bundle.id, tx: replaced.txHashes.at(-1) }, "bundle stuck; replaced with higher fees");
  return replaced;
}
