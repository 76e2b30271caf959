import type { KeySigner } from "../../custody/keySigner";
import type { Bundle } from "../../transactions/bundle";
import { currentFees } from "../../chains/fees";
import type { OperationContext } from "../../userop/bundling/operationContext";
import { recordBundle } from "./recordBundle";

/**
 * Fills a relayer nonce gap that no request is ready to fill: a transfer of nothing from the relayer to itself at
 * that nonce, recorded as a bundle carrying no requests (so it is tracked, bumped and settled like any other, and
 * survives a restart). Without it, the bundles above the gap could never be mined. It changes nothing but the
 * relayer's balance, so it is no foreign transaction to the pre-broadcast check's own-blocks skip.
 * Returns the recorded filler and its gas limit.
 */
export async function fillNonceGap(
  context: OperationContext,
  relayer: KeySigner,
  nonce: number,
): Promise<{ readonly bundle: Bundle; readonly gasLimit: bigint }> {
  const { provider } = context.chain;
  // Estimated, not 21,000: on some chains (Arbitrum) a transaction's gas pays for its L1 data too.
  const [fees, estimate] = await Promise.all([
    currentFees(provider),
    provider.send("eth_estimateGas", [{ from: relayer.address, to: relayer.address, value: "0x0" }]) as Promise<string>,
  ]);
  const call = { to: relayer.address, data: "0x", gasLimit: BigInt(estimate), ops: [] };
  const bundle = await recordBundle(context, relayer, call, fees, nonce);
  context.logger.warn({ bundle: bundle.id, nonce }, "relayer nonce gap filled with an empty transaction");
  return { bundle, gasLimit: call.gasLimit };
}
