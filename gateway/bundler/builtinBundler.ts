import type { KeySigner } from "../custody/keySigner";
import type { Bundle } from "../transactions/bundle";
import { RequestClosedError } from "../transactions/transactionsRepository";
import { RELAYER_REJECTED, broadcastBundle } from "./builtin/broadcastBundle";
import { paymastersOf } from "../userop/bundling/paymasterDeposits";
import { coveredBehind } from "./builtin/coveredBehind";
import { InFlight } from "./builtin/inFlight";
import { fillNonceGap } from "./builtin/nonceFiller";
import { type OwnKind, OwnTransactions } from "../relaying/ownTransactions";
import { NextPreparation } from "./builtin/prepareNext";
import { recordBundle } from "./builtin/recordBundle";
import { hasNonceGap, inLine, nextRelayerNonce } from "./builtin/relayerNonces";
import { replaceBundle } from "./builtin/replaceBundle";
import { settleDropped, settleMined } from "./builtin/settleBundle";
import { type RelayerStanding, minedNonceOf, trackBundle } from "./builtin/trackBundle";
import { MAX_BUNDLE_GAS } from "../userop/bundling/buildBundle";
import type { OperationContext } from "../userop/bundling/operationContext";
import type { Prepared, Relayer, RelayerCall, WorkKinds } from "../relaying/workKind";
import { createWorkKinds } from "./workKinds";

/** Longest wait between two gap fillers the node keeps refusing. */
const MAX_FILLER_BACKOFF_MS = 60_000;

/** Settings of the built-in bundler. */
export interface BuiltinBundlerSettings {
  /** The relayer's key: sends handleOps and collects the operations' gas refunds. */
  readonly relayer: KeySigner;
  /** A bundle not mined after this long is replaced with bumped fees. */
  readonly stuckAfterMs: number;
  /** Fee increase of a replacement, in percent (nodes require at least 10). */
  readonly feeBumpPercent: bigint;
  /** Bundles pending at once (TX_MAX_BUNDLES_IN_FLIGHT); 1 if unset. */
  readonly maxInFlight?: number;
  /**
   * The poll interval: the pending bundles are looked up on chain at most this often (and at the step after a send),
   * and a bundle that is not full goes behind pending ones no sooner than this after the one before it. 0 if unset:
   * every step.
   */
  readonly trackIntervalMs?: number;
}

/**
 * The built-in bundler of one chain: puts the chain's due requests (one per wallet) into relayer transactions (an
 * `EntryPoint.handleOps` bundle, or a Safe relay), up to `maxInFlight` pending at once at consecutive relayer
 * nonces. Every bundle (its signed transaction and what it carries) is recorded before it is broadcast, so after a
 * crash it is tracked, not rebuilt; replacements reuse its relayer nonce, so at most one version is mined.
 *
 * Sending behind pending bundles: only handleOps bundles this worker sent itself may be pending (a Safe relay goes
 * alone, and after a restart the recorded bundles are followed to the end first), each wallet has at most one
 * request in flight across all of them (`due` skips wallets with a submitted request), and what they may still spend
 * is reserved from the relayer's balance and the paymaster's deposit (coveredBehind). Batching: with nothing
 * pending a bundle goes at once; behind pending ones, at once if the one before was full (a backlog), else one poll
 * interval after it, carrying what arrived meanwhile. A wake only considers sending; the pending bundles are looked
 * up on chain once per poll interval, and at the step after a bundle is sent (on a chain that mines at once, it is
 * mined by then).
 */
export class BuiltinBundler {
  private readonly own = new OwnTransactions();
  private readonly inFlight = new InFlight();
  private readonly relayer: Relayer;
  private readonly kinds: WorkKinds;
  private readonly preparation: NextPreparation;
  private readonly maxInFlight: number;
  private readonly trackIntervalMs: number;
  /** When the pending bundles were last looked up (ms, monotonic); -Infinity: at the next step. */
  private lastTracked = -Infinity;
  /** The relayer's mined nonce, as last read. */
  private minedNonce: number | undefined;
  /** How many were pending when a bundle behind them was not covered: none is tried again until fewer are. */
  private uncoveredAt: number | undefined;
  /** Gap fillers the node refused in a row, and when the next may be tried (ms, monotonic). */
  private fillerRefusals = 0;
  private fillerNotBefore = -Infinity;

  constructor(
    private readonly context: OperationContext,
    private readonly settings: BuiltinBundlerSettings,
  ) {
    this.relayer = { address: settings.relayer.address, own: this.own };
    this.kinds = createWorkKinds(context);
    this.preparation = new NextPreparation(context, this.kinds, this.relayer);
    this.maxInFlight = settings.maxInFlight ?? 1;
    this.trackIntervalMs = settings.trackIntervalMs ?? 0;
  }

  /** One step: follow the pending bundles (once per poll interval, or after a send), and send the next if it may go. */
  async tick(): Promise<boolean> {
    const pending = await this.context.repository.pendingBundles(this.context.chain.name);
    this.inFlight.keepOnly(pending);
    if (pending.length === 0) {
      this.uncoveredAt = undefined;
      return this.send(pending);
    }
    if (performance.now() - this.lastTracked >= this.trackIntervalMs) {
      this.lastTracked = performance.now();
      if (await this.followAll(pending)) return true;
    }
    return this.sendBehind(pending);
  }

  /** Waits for the bundle being prepared in the background, if any, so nothing writes after the worker stops. */
  async close(): Promise<void> {
    await this.preparation.close();
  }

  /**
   * Sends a bundle behind the pending ones if it may go (see the class), or fills a gap in the relayer's nonces
   * below them: a gap is filled at once, by a bundle if one is ready, else by an empty transaction.
   */
  private async sendBehind(pending: readonly Bundle[]): Promise<boolean> {
    if (pending.length < (this.uncoveredAt ?? Infinity)) this.uncoveredAt = undefined;
    const gap = this.minedNonce !== undefined && hasNonceGap(this.minedNonce, pending, this.relayer.address);
    const known = this.inFlight.reserved(pending) !== undefined;
    if (known && (gap || this.mayGoBehind(pending)) && (await this.send(pending))) return true;
    if (!gap) return false;
    // A node that refuses fillers (the relayer's balance short, a held transaction at that nonce) is asked again
    // later and later, not every step: each refused filler is one more signature, row and warning.
    if (performance.now() < this.fillerNotBefore) return false;
    const nonce = nextRelayerNonce(this.minedNonce!, pending, this.relayer.address);
    const { bundle: filler, gasLimit } = await fillNonceGap(this.context, this.settings.relayer, nonce);
    this.inFlight.add(filler.id, { runs: "bundle", gasLimit, prefunds: 0n, full: false, sentAt: performance.now() });
    if ((await this.broadcast(filler, "bundle")) === "refused") {
      this.fillerRefusals++;
      const backOff = Math.max(this.trackIntervalMs, 1) * 2 ** Math.min(this.fillerRefusals, 16);
      this.fillerNotBefore = performance.now() + Math.min(backOff, MAX_FILLER_BACKOFF_MS);
    } else {
      this.fillerRefusals = 0;
    }
    // Not counted as progress: a relayer whose fillers the node refuses must not spin the loop.
    return false;
  }

  /** Whether a bundle may go behind the pending ones now: room, no shortfall seen, and full or gathered long enough. */
  private mayGoBehind(pending: readonly Bundle[]): boolean {
    if (pending.length >= this.maxInFlight || this.uncoveredAt !== undefined) return false;
    const newest = this.inFlight.newest();
    return !newest || newest.full || performance.now() - newest.sentAt >= this.trackIntervalMs;
  }

  /**
   * Sends the next bundle: select and prepare (simulate) it, or take the one prepared meanwhile → check it against
   * the chain (and, behind pending bundles, that it is covered) → record it, signed, at the next relayer nonce →
   * broadcast it. The one after it is prepared meanwhile when this one fills the last place in flight or is full.
   */
  private async send(pending: readonly Bundle[]): Promise<boolean> {
    const behind = pending.length > 0;
    const prepared = await this.preparation.take(behind);
    if (prepared === "idle") return false;
    if (prepared === "settled") return true;
    // Ahead only when the next cannot gather more anyway: this one fills the last place, or a backlog fills it.
    if (pending.length + 1 >= this.maxInFlight || prepared.senders.length >= this.context.maxOpsPerBundle) {
      this.preparation.startAfter(prepared);
    }
    const [call, minedNonce] = await Promise.all([
      prepared.kind.check(prepared, this.relayer, behind),
      minedNonceOf(this.context, this.relayer.address),
    ]);
    this.minedNonce = minedNonce;
    if (!call) return true;
    if (behind && !(await this.covered(pending, prepared, call))) {
      this.uncoveredAt = pending.length;
      this.context.logger.warn(
        { pending: pending.length },
        "the relayer's balance or the paymaster's deposit does not cover another bundle; waiting for the pending ones",
      );
      return false;
    }
    const nonce = nextRelayerNonce(minedNonce, pending, this.relayer.address);
    const bundle = await recordBundle(this.context, this.settings.relayer, call, prepared.fees, nonce).catch(
      (error: unknown) => {
        // An operator cancelled one of its requests while it was built: nothing was recorded or sent; the others are
        // still queued and the next step builds them again, without it.
        if (!(error instanceof RequestClosedError)) throw error;
        this.context.logger.info({ tx: error.txId }, "request cancelled while its bundle was built; bundle rebuilt");
        return undefined;
      },
    );
    if (!bundle) return true;
    this.inFlight.add(bundle.id, {
      runs: prepared.kind.runs,
      gasLimit: call.gasLimit,
      prefunds: call.prefunds ?? 0n,
      full: call.ops.length >= this.context.maxOpsPerBundle || call.gasLimit * 5n >= MAX_BUNDLE_GAS * 4n,
      sentAt: performance.now(),
    });
    await this.broadcast(bundle, prepared.kind.runs);
    // Looked up at the next step, not a poll interval later: a chain that mines at once (automine, a dev node) has
    // mined it by then, and the next bundle waits for that.
    this.lastTracked = -Infinity;
    return true;
  }

  /** Whether what the pending bundles may spend leaves enough for this one too (coveredBehind). */
  private async covered(pending: readonly Bundle[], prepared: Prepared, call: RelayerCall): Promise<boolean> {
    const reserved = this.inFlight.reserved(pending);
    if (!reserved) return false;
    // On an OP-stack chain the relayer also pays the bundle's L1 data fee, beside its gas.
    const relayerWei = call.gasLimit * prepared.fees.maxFeePerGas + (call.l1DataFee ?? 0n);
    const userOps = call.ops.flatMap((op) => ("userOp" in op ? [op.userOp] : []));
    const next = { relayerWei, paymasterWei: call.prefunds ?? 0n, paymasters: paymastersOf(userOps) };
    return coveredBehind(this.context, this.relayer.address, reserved, next);
  }

  /** Follows every pending bundle, in nonce order, against its relayer's mined nonce read once. */
  private async followAll(pending: readonly Bundle[]): Promise<boolean> {
    const relayers = [...new Set(pending.map((b) => b.relayer))];
    const mined = new Map(
      await Promise.all(relayers.map(async (r) => [r, await minedNonceOf(this.context, r)] as const)),
    );
    const own = mined.get(this.relayer.address);
    if (own !== undefined) this.minedNonce = own;
    const lined = inLine(mined, pending);
    let progressed = false;
    for (const bundle of pending) {
      const standing = { minedNonce: mined.get(bundle.relayer)!, inLine: lined.has(bundle.id) };
      if (await this.follow(bundle, standing)) progressed = true;
    }
    return progressed;
  }

  /** Follows a pending bundle: track it → settle it once mined and confirmed or dropped; replace or resend it. */
  private async follow(bundle: Bundle, standing: RelayerStanding): Promise<boolean> {
    const state = await trackBundle(this.context, bundle, this.settings.stuckAfterMs, standing);
    switch (state.status) {
      case "mined":
        await settleMined(this.context, this.kinds, this.own, bundle, state.receipt);
        return true;
      case "dropped":
        await settleDropped(this.context, this.kinds, bundle);
        return true;
      case "stuck":
        await this.broadcast(
          await replaceBundle(this.context, this.settings.relayer, bundle, this.settings.feeBumpPercent),
        );
        return true;
      case "lost":
        await this.broadcast(bundle);
        return false;
      case "unconfirmed":
      case "pending":
        return false;
    }
  }

  /** Broadcasts a recorded bundle; one the node refused is dropped, its requests back to the queue. */
  private async broadcast(bundle: Bundle, runs?: OwnKind): Promise<"broadcast" | "refused"> {
    const sent = await broadcastBundle(this.context, this.own, bundle, runs);
    if (sent === "refused") await settleDropped(this.context, this.kinds, bundle, RELAYER_REJECTED);
    return sent;
  }
}
