import type { Bundle } from "../../transactions/bundle";
import type { OwnKind } from "../../relaying/ownTransactions";

/** What this worker knows of a bundle it sent, for sending more behind it. */
export interface SentBundle {
  readonly runs: OwnKind;
  /** Its relayer transaction's gas limit: at its newest fees, what it may cost the relayer at most. */
  readonly gasLimit: bigint;
  /** What it may take from the paymaster's deposit at most (its operations' prefunds at their fees). */
  readonly prefunds: bigint;
  /** It carried as much as a bundle takes: more was likely due, so the next need not wait to gather more. */
  readonly full: boolean;
  /** When it was sent (ms, monotonic). */
  readonly sentAt: number;
}

/** What the pending bundles may still spend, at most, once mined: a bundle sent behind them must be covered too. */
export interface Reserved {
  readonly relayerWei: bigint;
  readonly paymasterWei: bigint;
}

/**
 * The bundles this worker sent that are still pending, and what each may spend. A later bundle's pre-broadcast
 * check runs against the chain's latest block, which does not hold them: what they spend (the relayer's balance,
 * the paymaster's deposit) is reserved from what that check sees. A pending bundle this worker did not send
 * (recorded before a restart or by an earlier lease holder) is unknown here: nothing is sent behind it.
 */
export class InFlight {
  private readonly sent = new Map<string, SentBundle>();

  /** Remembers a bundle just recorded and broadcast (or a filler of a nonce gap). */
  add(bundleId: string, sent: SentBundle): void {
    this.sent.set(bundleId, sent);
  }

  /** Forgets the bundles no longer pending. */
  keepOnly(pending: readonly Bundle[]): void {
    const ids = new Set(pending.map((b) => b.id));
    for (const id of this.sent.keys()) if (!ids.has(id)) this.sent.delete(id);
  }

  /**
   * What the pending bundles reserve, if more may be sent behind them: each was sent here and runs handleOps (a Safe
   * relay runs an app's calls outside the EntryPoint, which no check of a later bundle could account for).
   */
  reserved(pending: readonly Bundle[]): Reserved | undefined {
    let relayerWei = 0n;
    let paymasterWei = 0n;
    for (const bundle of pending) {
      const sent = this.sent.get(bundle.id);
      if (!sent || sent.runs !== "bundle") return undefined;
      relayerWei += sent.gasLimit * bundle.maxFeePerGas;
      paymasterWei += sent.prefunds;
    }
    return { relayerWei, paymasterWei };
  }

  /** The most recently sent of the pending bundles, if this worker sent it. */
  newest(): SentBundle | undefined {
    let newest: SentBundle | undefined;
    for (const sent of this.sent.values()) if (!newest || sent.sentAt > newest.sentAt) newest = sent;
    return newest;
  }
}
