import type { KeySigner } from "../custody/keySigner";
import type { Bundle } from "../transactions/bundle";
import { RELAYER_REJECTED, broadcastBundle } from "./builtin/broadcastBundle";
import { type OwnKind, OwnTransactions } from "./builtin/ownTransactions";
import { NextPreparation } from "./builtin/prepareNext";
import { recordBundle, relayerNonce } from "./builtin/recordBundle";
import { replaceBundle } from "./builtin/replaceBundle";
import { settleDropped, settleMined } from "./builtin/settleBundle";
import { trackBundle } from "./builtin/trackBundle";
import type { WorkerContext } from "./workerContext";
import type { Relayer, WorkKinds } from "./workKind";
import { createWorkKinds } from "./workKinds";

/** Settings of the built-in bundler. */
export interface BuiltinBundlerSettings {
  /** The relayer's key: sends handleOps and collects the operations' gas refunds. */
  readonly relayer: KeySigner;
  /** A bundle not mined after this long is replaced with bumped fees. */
  readonly stuckAfterMs: number;
  /** Fee increase of a replacement, in percent (nodes require at least 10). */
  readonly feeBumpPercent: bigint;
}

/**
 * The built-in bundler of one chain: puts the chain's due requests (one per wallet) into one relayer transaction
 * (an `EntryPoint.handleOps` bundle, or a Safe relay), one in flight at a time. Every bundle (its signed
 * transaction and what it carries) is recorded before it is broadcast, so after a crash it is tracked, not
 * rebuilt; replacements reuse its relayer nonce, so at most one version is mined.
 */
export class BuiltinBundler {
  private readonly own = new OwnTransactions();
  private readonly relayer: Relayer;
  private readonly kinds: WorkKinds;
  private readonly preparation: NextPreparation;

  constructor(
    private readonly context: WorkerContext,
    private readonly settings: BuiltinBundlerSettings,
  ) {
    this.relayer = { address: settings.relayer.address, own: this.own };
    this.kinds = createWorkKinds(context);
    this.preparation = new NextPreparation(context, this.kinds, this.relayer);
  }

  /** One step: follow the bundle in flight, or send the next one. True if it did something. */
  async tick(): Promise<boolean> {
    const [pending] = await this.context.repository.pendingBundles(this.context.chain.name);
    return pending ? this.follow(pending) : this.sendNext();
  }

  /** Waits for the bundle being prepared in the background, if any, so nothing writes after the worker stops. */
  async close(): Promise<void> {
    await this.preparation.close();
  }

  /**
   * Sends the next bundle: select and prepare (simulate) it, or take the one prepared meanwhile, and start on the
   * one after it → check it against the chain → record it, signed → broadcast it.
   */
  private async sendNext(): Promise<boolean> {
    const prepared = await this.preparation.take();
    if (prepared === "idle") return false;
    if (prepared === "settled") return true;
    this.preparation.startAfter(prepared);
    const [call, nonce] = await Promise.all([
      prepared.kind.check(prepared, this.relayer),
      relayerNonce(this.context, this.relayer.address),
    ]);
    if (!call) return true;
    const bundle = await recordBundle(this.context, this.settings.relayer, call, prepared.fees, nonce);
    await this.broadcast(bundle, prepared.kind.runs);
    return true;
  }

  /** Follows the pending bundle: track it → settle it once mined and confirmed or dropped; replace or resend it. */
  private async follow(bundle: Bundle): Promise<boolean> {
    const state = await trackBundle(this.context, bundle, this.settings.stuckAfterMs);
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
  private async broadcast(bundle: Bundle, runs?: OwnKind): Promise<void> {
    if ((await broadcastBundle(this.context, this.own, bundle, runs)) === "refused") {
      await settleDropped(this.context, this.kinds, bundle, RELAYER_REJECTED);
    }
  }
}
