import type { KeySigner } from "../../custody/keySigner";
import type { Bundle } from "../../transactions/bundle";
import { currentFees } from "../fees";
import type { WorkerContext } from "../workerContext";
import { recordBundle } from "./recordBundle";

/** Gas of a plain transfer. */
const TRANSFER_GAS = 21_000n;

/**
 * Fills a relayer nonce gap that no request is ready to fill: a transfer of nothing from the relayer to itself at
 * that nonce, recorded as a bundle carrying no requests (so it is tracked, bumped and settled like any other, and
 * survives a restart). Without it, the bundles above the gap could never be mined. It changes nothing but the
 * relayer's balance, so it is no foreign transaction to the pre-broadcast check's own-blocks skip.
 */
export async function fillNonceGap(context: WorkerContext, relayer: KeySigner, nonce: number): Promise<Bundle> {
  const fees = await currentFees(context.chain.provider);
  const call = { to: relayer.address, data: "0x", gasLimit: TRANSFER_GAS, ops: [] };
  const bundle = await recordBundle(context, relayer, call, fees, nonce);
  context.logger.warn({ bundle: bundle.id, nonce }, "relayer nonce gap filled with an empty transaction");
  return bundle;
}
