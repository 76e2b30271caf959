import type { TxOutcome } from "../../transactions/txOutcome";
import type { SafeTxRecord } from "../../transactions/txRecord";
import { currentFees } from "../../chains/fees";
import type { WorkerContext } from "../../relaying/workerContext";
import type { Preparation, Prepared, Relayer, RelayerCall, RelayerReceipt, WorkKind } from "../../relaying/workKind";
import { type SafePreparation, type SafeRelay, prepareSafeRelay } from "./prepareSafeRelay";
import { SafeUnreadableError } from "./safeNonce";
import { safeMissingOutcome, safeOutcomeOfReceipt } from "./safeRelayOutcomes";
import { chargedSafeOutcome, relayCostGas } from "./spentGas";

/** A Safe request ready for the relayer, and the block its check ran on. */
export interface CheckedSafeRelay {
  readonly tx: SafeTxRecord;
  readonly relay: SafeRelay;
  readonly checkedAt: number;
}

/**
 * Safe requests: a Safe's deployment or one Safe transaction signed by the operator, each sent alone in a relayer
 * transaction of its own (prepareSafeRelay); only the built-in relayer sends them.
 */
export class SafeKind implements WorkKind<CheckedSafeRelay> {
  readonly runs = "safe";
  readonly chargesRelayerGas = true;

  constructor(private readonly context: WorkerContext) {}

  /**
   * Checks and signs the oldest due Safe request's relayer call (one per relayer transaction), or settles it when it
   * needs no sending. Looked at ahead of the transaction in flight, a failure is not final: it is checked again
   * once that transaction is settled. A Safe that no longer answers as one fails alone instead of stopping the
   * chain's queue.
   */
  async prepare(
    due: readonly SafeTxRecord[],
    options: { relayer: Relayer; at: number; ahead: boolean },
  ): Promise<Preparation<CheckedSafeRelay>> {
    const tx = due[0]!;
    const { provider } = this.context.chain;
    const [fees, checkedAt, prepared] = await Promise.all([
      currentFees(provider),
      provider.send("eth_blockNumber", []) as Promise<string>,
      this.relay(tx, options.relayer, options.ahead),
    ]);
    if ("later" in prepared) return "idle";
    if ("outcome" in prepared) {
      await this.context.repository.settle(tx.id, prepared.outcome);
      return "settled";
    }
    const batch = { tx, relay: prepared.relay, checkedAt: Number(checkedAt) };
    return { kind: this, at: options.at, fees, senders: [tx.sender], batch };
  }

  /** The relay as prepared if only our own transactions came since its check, else prepared again now. */
  async check(prepared: Prepared<CheckedSafeRelay>, relayer: Relayer): Promise<RelayerCall | undefined> {
    const { tx, checkedAt } = prepared.batch;
    let relay = prepared.batch.relay;
    if (!(await relayer.own.onlySince(this.context.chain.provider, checkedAt, ["bundle", "safe"]))) {
      const again = await this.relay(tx, relayer, false);
      if ("outcome" in again) {
        await this.context.repository.settle(tx.id, again.outcome);
        return undefined;
      }
      if ("later" in again) return undefined;
      relay = again.relay;
    }
    return { to: relay.to, data: relay.data, gasLimit: relay.gasLimit, ops: [relay.built] };
  }

  /** By the Safe's events (safeOutcomeOfReceipt), charged the relayer's gas: it was sent for this request alone. */
  async outcomesOfReceipt(txs: readonly SafeTxRecord[], receipt: RelayerReceipt): Promise<Map<string, TxOutcome>> {
    const outcomes = new Map<string, TxOutcome>();
    for (const tx of txs) {
      const outcome = await safeOutcomeOfReceipt(this.context, tx, receipt);
      outcomes.set(tx.id, chargedSafeOutcome(tx, outcome, relayCostGas(receipt)));
    }
    return outcomes;
  }

  /** Settled by the Safe's code or its used nonce, else back to the queue (safeMissingOutcome). */
  outcomeWhenMissing(tx: SafeTxRecord): Promise<TxOutcome> {
    return safeMissingOutcome(this.context, tx);
  }

  /**
   * Never closed here: a Safe request decides running out itself, when it is prepared (an earlier build's signature
   * may first need cancelling).
   */
  async giveUp(): Promise<undefined> {
    return undefined;
  }

  /**
   * Accepted while this chain had no bundler URL: Safe requests need the built-in relayer. One never sent can fail;
   * one sent before holds a signature that may still run, so it waits for the relayer's return.
   */
  withExternalBundler(tx: SafeTxRecord): "wait" | TxOutcome {
    if (tx.safeNonce !== undefined) return "wait";
    return {
      status: "failed",
      error: { code: "SAFE_NOT_CONFIGURED", message: "this chain now sends through an external bundler" },
    };
  }

  /** prepareSafeRelay, with a Safe that no longer answers as one settled as failed. */
  private async relay(tx: SafeTxRecord, relayer: Relayer, ahead: boolean): Promise<SafePreparation> {
    try {
      return await prepareSafeRelay(this.context, tx, relayer.address, { ahead });
    } catch (error) {
      if (!(error instanceof SafeUnreadableError)) throw error;
      return { outcome: { status: "failed", error: { code: "SAFE_UNREADABLE", message: error.message } } };
    }
  }
}
