import type { TxOutcome } from "../../transactions/txOutcome";
import type { SafeTxRecord } from "../../transactions/txRecord";
import type { RelayerReceipt } from "../../relaying/workKind";

/** A Safe request whose sends, reverted on chain, burned all the gas it reserved: not sent again. */
export const BUDGET_EXHAUSTED_BY_RETRIES = "BUDGET_EXHAUSTED_BY_RETRIES";

/**
 * What a mined relay cost the relayer, in gas: its gasUsed, and on an OP-stack chain its L1 data fee (the receipt's
 * `l1Fee`) in gas at the price it paid, rounded up, which the request's budget counts as it reserved it.
 */
export function relayCostGas(receipt: Pick<RelayerReceipt, "gasUsed" | "l1Fee" | "effectiveGasPrice">): bigint {
  const gasUsed = BigInt(receipt.gasUsed);
  if (receipt.l1Fee === undefined || receipt.effectiveGasPrice === undefined) return gasUsed;
  const price = BigInt(receipt.effectiveGasPrice) > 0n ? BigInt(receipt.effectiveGasPrice) : 1n;
  return gasUsed + (BigInt(receipt.l1Fee) + price - 1n) / price;
}

/**
 * The outcome of a mined Safe relay, charged the receipt's gas: the relayer sent it for this request alone, so all
 * of it is the request's, reverted or not (an app could otherwise make its relays revert for free). A retry whose
 * sends have burned the reservation is closed instead: its Safe nonce is used up by a cancellation (a signed build
 * may still be submitted by anyone until then), and it fails with BUDGET_EXHAUSTED_BY_RETRIES.
 */
export function chargedSafeOutcome(tx: SafeTxRecord, outcome: TxOutcome, gasUsed: bigint): TxOutcome {
  const charged = { ...outcome, spentGas: gasUsed };
  const reserved = tx.reservedGas ?? 0n;
  // A reservation of 0 is a request accepted before budgets existed: nothing to exhaust.
  if (charged.status !== "queued" || reserved === 0n || tx.spentGas + gasUsed < reserved) return charged;
  const message = `its sends reverted on chain after burning ${tx.spentGas + gasUsed} gas; it reserved ${reserved}`;
  return { ...charged, closeWhenDue: true, error: { code: BUDGET_EXHAUSTED_BY_RETRIES, message } };
}
