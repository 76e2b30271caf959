import type { DigestSigner } from "../crypto/digestSigner";
import { relayerFieldsOf, signRelayerTransaction } from "./builtin/relayerTransaction";
import { isTransportError, rpcErrorMessage } from "../chains/revertData";
import type { Bundle, BuiltUserOp, TxOutcome, TxRecord } from "../storage/transactionsRepository";
import type { Fees } from "../transactions/operationDraft";
import { buildUserOperations } from "../transactions/userOpBuilder";
import { encodeHandleOps } from "../userop/opsAbi";
import { MAX_BUNDLE_BYTES, operationBytes } from "../userop/operationSize";
import { bundleGasBound, bundleGasLimit } from "./userOperation/bundleCheck";
import { bumpedFees, currentFees } from "./fees";
import { includedOutcome, operationEvents } from "./userOperation/operationEvents";
import { type SafePreparation, type SafeRelay, prepareSafeRelay } from "./safeRelay/prepareSafeRelay";
import { SafeUnreadableError } from "./safeRelay/safeNonce";
import { safeMissingOutcome, safeOutcomeOfReceipt } from "./safeRelay/safeRelayOutcomes";
import { mapLimit } from "../concurrency/mapLimit";
import { chargedSafeOutcome } from "./safeRelay/spentGas";
import { type OwnKind, OwnTransactions } from "./builtin/ownTransactions";
import { opsToBroadcast } from "./userOperation/preBroadcast";
import { takeDue } from "./selectDue";
import { outcomeOfFailure, outcomeOfMissingOperation } from "./userOperation/operationOutcomes";
import type { WorkerContext } from "./workerContext";

/** Settings of the built-in bundler. */
export interface BuiltinBundlerSettings {
  /** The relayer's key: sends handleOps and collects the operations' gas refunds. */
  readonly relayer: DigestSigner;
  /** A bundle not mined after this long is replaced with bumped fees. */
  readonly stuckAfterMs: number;
  /** Fee increase of a replacement, in percent (nodes require at least 10). */
  readonly feeBumpPercent: bigint;
}

/** Simultaneous eth_getCode lookups. */
const CODE_LOOKUP_CONCURRENCY = 16;
/** Largest bundle gas limit: under EIP-7825's per-transaction cap (2^24) and common block limits. */
const MAX_BUNDLE_GAS = 15_000_000n;
/** A bundle prepared ahead that waited longer than this is built again (fees and state have moved on). */
const PREPARED_MAX_AGE_MS = 10_000;

/** A bundle built and signed, not yet recorded. */
interface Prepared {
  readonly kind: "userops";
  /** When its preparation started (ms). */
  readonly at: number;
  readonly ops: BuiltUserOp[];
  readonly picked: readonly TxRecord[];
  readonly fees: Fees;
  /** The block its simulation ran on. */
  readonly simulatedAt: number;
}

/** A Safe request ready for the relayer (one per relayer transaction). */
interface PreparedSafe {
  readonly kind: "safe";
  readonly at: number;
  readonly tx: TxRecord;
  readonly relay: SafeRelay;
  readonly fees: Fees;
  /** The block its check ran on. */
  readonly checkedAt: number;
}

/** What preparing found: a bundle to send, requests only settled (closed or failed), or nothing due. */
type Preparation = Prepared | PreparedSafe | "settled" | "idle";

interface RpcReceipt {
  status: string;
  blockNumber: string;
  gasUsed: string;
  transactionHash: string;
  logs: { address: string; topics: string[]; data: string; transactionHash: string; blockNumber: string }[];
}

/**
 * The built-in bundler of one chain: puts the chain's due requests (one per wallet) into one
 * `EntryPoint.handleOps` transaction sent by the relayer key, one bundle in flight at a time. Every bundle (its
 * signed transaction and operations) is recorded before it is broadcast, so after a crash it is tracked, not
 * rebuilt; replacements reuse its relayer nonce, so at most one version is mined.
 */
export class BuiltinBundler {
  /** Wallets seen with code: they stay deployed, so they are not looked up again. */
  private readonly knownDeployed = new Set<string>();
  /** The next bundle, built while the one before it is mined. */
  private next: Promise<Preparation> | undefined;
  /** The latest transactions this bundler broadcast. */
  private readonly own = new OwnTransactions();

  constructor(
    private readonly context: WorkerContext,
    private readonly settings: BuiltinBundlerSettings,
  ) {}

  /** One step: track the bundle in flight, or send the next one. True if it did something. */
  async tick(): Promise<boolean> {
    const [pending] = await this.context.repository.pendingBundles(this.context.chain.name);
    if (pending) return this.track(pending);
    const prepared = await this.takePrepared();
    if (prepared === "idle") return false;
    if (prepared === "settled") return true;
    if (prepared.kind === "safe") await this.sendSafe(prepared);
    else await this.send(prepared);
    return true;
  }

  /** Waits for the bundle being prepared in the background, if any, so nothing writes after the worker stops. */
  async close(): Promise<void> {
    await this.next?.catch(() => undefined);
  }

  private get provider() {
    return this.context.chain.provider;
  }

  /** Follows a pending bundle: settles it once mined and confirmed, rebroadcasts or replaces it otherwise. */
  private async track(bundle: Bundle): Promise<boolean> {
    // The newest version (the one mined, unless a replacement came late) is asked for alongside the relayer's mined
    // nonce. If that nonce is used and no receipt was seen, every version is asked again: the receipts read after
    // the nonce see any version of ours that was mined, so "nonce used and no receipt" then really means another
    // transaction used it.
    const hashes = [...bundle.txHashes].reverse();
    const [count, newest] = await Promise.all([
      this.provider.send("eth_getTransactionCount", [bundle.relayer, "latest"]) as Promise<string>,
      this.provider.send("eth_getTransactionReceipt", [hashes[0]]) as Promise<RpcReceipt | null>,
    ]);
    const minedNonce = Number(count);
    let receipt = newest;
    for (const hash of minedNonce > bundle.nonce && !receipt ? hashes : []) {
      receipt = await this.provider.send("eth_getTransactionReceipt", [hash]);
      if (receipt) break;
    }
    if (receipt) {
      if (this.context.confirmations > 1) {
        const latest = Number(await this.provider.send("eth_blockNumber", []));
        if (latest - Number(receipt.blockNumber) + 1 < this.context.confirmations) return false;
      }
      await this.settleMined(bundle, receipt);
      return true;
    }
    if (minedNonce > bundle.nonce) {
      await this.settleDropped(bundle);
      return true;
    }
    const age = this.context.clock().getTime() - Date.parse(bundle.sentAt);
    if (age >= this.settings.stuckAfterMs) {
      await this.replace(bundle);
      return true;
    }
    const known = await this.provider.send("eth_getTransactionByHash", [bundle.txHashes.at(-1)]);
    if (!known) await this.broadcast(bundle);
    return false;
  }

  private async settleMined(bundle: Bundle, receipt: RpcReceipt): Promise<void> {
    const reverted = receipt.status !== "0x1";
    // A reverted bundle of ours is not "our own block" to the skip of the pre-broadcast check: the next bundle is
    // run against the chain first, so a revert that would happen again (not an outsider's one-off) is caught there
    // and charged to the operation the EntryPoint names, instead of reverting on chain again, uncharged.
    if (reverted) this.own.forget(receipt.transactionHash);
    const logs = receipt.logs.map((log) => ({ ...log, blockNumber: Number(log.blockNumber) }));
    const events = operationEvents(logs, this.context.entryPoint);
    const outcomes = new Map<string, TxOutcome>();
    const ops = await this.context.repository.bundleOps(bundle.id);
    for (const tx of ops) {
      if (tx.accountType === "safe") {
        const outcome = await safeOutcomeOfReceipt(this.context, tx, receipt);
        // The relayer paid the whole transaction for this one request: its gas is charged to the app's budget.
        outcomes.set(tx.id, chargedSafeOutcome(tx, outcome, BigInt(receipt.gasUsed)));
        continue;
      }
      const event = tx.userOpHash === undefined ? undefined : events.get(tx.userOpHash.toLowerCase());
      // An operation that ran passed validation, so its wallet exists now (deployed by it or before).
      if (event) this.knownDeployed.add(tx.sender);
      outcomes.set(tx.id, event ? includedOutcome(event) : await outcomeOfMissingOperation(this.context, tx, reverted));
    }
    // A wallet bundle that reverted is charged to none of its operations: its gas is recorded as the relayer's loss.
    const unattributed = reverted && !ops.some((tx) => tx.accountType === "safe");
    await this.context.repository.settleBundle(
      bundle.id,
      {
        status: "mined",
        minedTxHash: receipt.transactionHash,
        blockNumber: Number(receipt.blockNumber),
        ...(unattributed ? { revertedGas: BigInt(receipt.gasUsed) } : {}),
      },
      outcomes,
    );
    this.context.logger.info(
      { bundle: bundle.id, tx: receipt.transactionHash, ops: outcomes.size, reverted },
      "bundle mined",
    );
  }

  /**
   * A bundle that never landed (refused by the node, or its relayer nonce used by another transaction of the key):
   * each operation not run elsewhere goes back to the queue, charged the send. Unlike a reverted bundle it cost no
   * gas, but nothing says which operation, if any, was at fault, and a refusal repeated uncharged would hold up the
   * chain's queue for ever; the attempt bound ends it. An outsider can cause neither (it spends no relayer nonce).
   */
  private async settleDropped(bundle: Bundle, error?: { code: string; message: string }): Promise<void> {
    const outcomes = new Map<string, TxOutcome>();
    for (const tx of await this.context.repository.bundleOps(bundle.id)) {
      const outcome =
        tx.accountType === "safe"
          ? await safeMissingOutcome(this.context, tx)
          : await outcomeOfMissingOperation(this.context, tx);
      outcomes.set(tx.id, outcome.status === "queued" && error ? { ...outcome, error } : outcome);
    }
    await this.context.repository.settleBundle(bundle.id, { status: "dropped" }, outcomes);
    this.context.logger.warn({ bundle: bundle.id, ...(error ? { error } : {}) }, "bundle dropped");
  }

  /**
   * Sends the same bundle again at the same relayer nonce with bumped fees. Not when the relayer key changed
   * since (the old key signs no more) or the bump would pass the fee cap: then the bundle is only rebroadcast.
   */
  private async replace(bundle: Bundle): Promise<void> {
    const fees =
      bundle.relayer === this.settings.relayer.address
        ? bumpedFees(bundle, await currentFees(this.provider), this.settings.feeBumpPercent)
        : undefined;
    if (!fees) {
      await this.broadcast(bundle);
      return;
    }
    const previous = relayerFieldsOf(bundle.rawTx);
    const { rawTx, txHash } = signRelayerTransaction(this.settings.relayer, { ...previous, ...fees });
    const replaced = await this.context.repository.replaceBundleTx(bundle.id, { txHash, rawTx, ...fees });
    this.context.logger.warn(
      { bundle: bundle.id, tx: replaced.txHashes.at(-1) },
      "bundle stuck; replaced with higher fees",
    );
    await this.broadcast(replaced);
  }

  /**
   * The next bundle: the one prepared in the background if it is fresh, else one prepared now.
   */
  private async takePrepared(): Promise<Preparation> {
    const early = this.next;
    this.next = undefined;
    const prepared = early ? await early : undefined;
    if (typeof prepared === "object" && this.context.clock().getTime() - prepared.at < PREPARED_MAX_AGE_MS) {
      return prepared;
    }
    // "settled" ahead was work done; "idle" ahead may be out of date: either way, look again now.
    return this.prepare();
  }

  /** Starts preparing the next bundle, from other wallets than `sending`'s, while that one is checked and sent. */
  private prepareAhead(sending: Prepared | PreparedSafe): void {
    const busy = sending.kind === "safe" ? [sending.tx.sender] : sending.ops.map((op) => op.userOp.sender);
    const next = this.prepare(new Set(busy));
    // Awaited by the next tick (or close); marked handled so a failure in between is not reported twice.
    next.catch(() => undefined);
    this.next = next;
  }

  /**
   * Builds the next bundle from the due requests: their operations, measured by simulation and signed. Its gas
   * limit is the sum of its operations' measured limits (the EntryPoint needs each operation's limits available
   * when it gets to it; unused transaction gas is not paid for); operations past MAX_BUNDLE_GAS stay queued for
   * the next bundle. Requests whose build failed are settled here; nothing else is written, so a prepared bundle
   * that is not sent (too old) costs nothing but the work.
   */
  private async prepare(busy?: ReadonlySet<string>): Promise<Preparation> {
    const { repository, maxOpsPerBundle } = this.context;
    const at = this.context.clock().getTime();
    const due = await takeDue(this.context, maxOpsPerBundle, busy);
    if (due === undefined) return "idle";
    // A Safe request goes alone in a relayer transaction of its own, when it is the oldest due; wallet requests
    // wait for the bundle after it.
    if (due[0]?.accountType === "safe") return this.prepareSafe(due[0], at, busy !== undefined);
    const picked = due.filter((tx) => tx.accountType !== "safe");
    if (picked.length === 0) return "settled";
    const [fees, deployed, simulatedAt] = await Promise.all([
      currentFees(this.provider),
      this.deployedWallets(picked),
      this.provider.send("eth_blockNumber", []) as Promise<string>,
    ]);
    const results = await buildUserOperations(
      picked.map((tx) => ({ tx, deployed: deployed.has(tx.sender) })),
      fees,
      this.context.builder,
    );
    const ops: BuiltUserOp[] = [];
    let bytes = 0;
    for (const [i, result] of results.entries()) {
      const tx = picked[i]!;
      if ("failure" in result) {
        await repository.settle(tx.id, await outcomeOfFailure(this.context, tx, result.failure));
        continue;
      }
      // Past the gas cap or the size limit, an operation waits, untouched, for the next bundle.
      const size = bytes + operationBytes(result.built.userOp);
      const gasLimit = bundleGasBound([...ops, result.built], size);
      if (ops.length > 0 && (gasLimit > MAX_BUNDLE_GAS || size > MAX_BUNDLE_BYTES)) continue;
      ops.push(result.built);
      bytes = size;
    }
    if (ops.length === 0) return "settled";
    return { kind: "userops", at, ops, picked, fees, simulatedAt: Number(simulatedAt) };
  }

  /**
   * Checks and signs a Safe request's relayer call, or settles it when it needs no sending. Looked at ahead of the
   * transaction in flight, a failure is not final: it is checked again once that transaction is settled. A Safe
   * that no longer answers as one fails alone instead of stopping the chain's queue.
   */
  private async prepareSafe(tx: TxRecord, at: number, ahead: boolean): Promise<Preparation> {
    const [fees, checkedAt, prepared] = await Promise.all([
      currentFees(this.provider),
      this.provider.send("eth_blockNumber", []) as Promise<string>,
      this.safeRelay(tx, ahead),
    ]);
    if ("later" in prepared) return "idle";
    if ("outcome" in prepared) {
      await this.context.repository.settle(tx.id, prepared.outcome);
      return "settled";
    }
    return { kind: "safe", at, tx, relay: prepared.relay, fees, checkedAt: Number(checkedAt) };
  }

  /** prepareSafeRelay, with a Safe that no longer answers as one settled as failed. */
  private async safeRelay(tx: TxRecord, ahead: boolean): Promise<SafePreparation> {
    try {
      return await prepareSafeRelay(this.context, tx, this.settings.relayer.address, { ahead });
    } catch (error) {
      if (!(error instanceof SafeUnreadableError)) throw error;
      return { outcome: { status: "failed", error: { code: "SAFE_UNREADABLE", message: error.message } } };
    }
  }

  /**
   * Sends a prepared Safe request like a bundle of one: checked again if blocks other than ours came since, then
   * recorded with its signed relayer transaction before it is broadcast.
   */
  private async sendSafe(prepared: PreparedSafe): Promise<void> {
    this.prepareAhead(prepared);
    const [ownBlocks, latestNonce] = await Promise.all([
      this.own.onlySince(this.provider, prepared.checkedAt, ["bundle", "safe"]),
      this.provider.send("eth_getTransactionCount", [this.settings.relayer.address, "latest"]) as Promise<string>,
    ]);
    let relay = prepared.relay;
    if (!ownBlocks) {
      const again = await this.safeRelay(prepared.tx, false);
      if ("outcome" in again) {
        await this.context.repository.settle(prepared.tx.id, again.outcome);
        return;
      }
      if ("later" in again) return;
      relay = again.relay;
    }
    const nonce = Number(latestNonce);
    const { rawTx, txHash } = signRelayerTransaction(this.settings.relayer, {
      chainId: this.context.chain.chainId,
      nonce,
      to: relay.to,
      data: relay.data,
      value: 0n,
      gasLimit: relay.gasLimit,
      ...prepared.fees,
    });
    const bundle = await this.context.repository.recordBundle(
      {
        chain: this.context.chain.name,
        relayer: this.settings.relayer.address,
        nonce,
        txHash,
        rawTx,
        ...prepared.fees,
      },
      [relay.built],
    );
    await this.broadcast(bundle, "safe");
  }

  /**
   * Starts preparing the next bundle, checks this one against the chain unless its simulation still holds, and
   * records it with its signed transaction before broadcasting it.
   */
  private async send(prepared: Prepared): Promise<void> {
    const { fees } = prepared;
    this.prepareAhead(prepared);
    const [ops, latestNonce] = await Promise.all([
      opsToBroadcast(this.context, this.settings.relayer.address, prepared, this.own, this.knownDeployed),
      // "latest": the relayer key is this worker's alone and nothing of ours is in flight now, so a foreign or
      // lost pending transaction cannot push the bundle behind a nonce gap.
      this.provider.send("eth_getTransactionCount", [this.settings.relayer.address, "latest"]) as Promise<string>,
    ]);
    if (ops.length === 0) return;
    const data = encodeHandleOps(
      ops.map((op) => op.userOp),
      this.settings.relayer.address,
    );
    const gasLimit = bundleGasLimit(ops, data);
    const nonce = Number(latestNonce);
    const { rawTx, txHash } = signRelayerTransaction(this.settings.relayer, {
      chainId: this.context.chain.chainId,
      nonce,
      to: this.context.entryPoint,
      data,
      value: 0n,
      gasLimit,
      ...fees,
    });
    const bundle = await this.context.repository.recordBundle(
      { chain: this.context.chain.name, relayer: this.settings.relayer.address, nonce, txHash, rawTx, ...fees },
      ops,
    );
    await this.broadcast(bundle, "bundle");
  }

  /** The wallets among `txs` that have code; a wallet once seen deployed is not asked about again. */
  private async deployedWallets(txs: readonly TxRecord[]): Promise<Set<string>> {
    const unknown = [...new Set(txs.map((tx) => tx.sender))].filter((sender) => !this.knownDeployed.has(sender));
    await mapLimit(unknown, CODE_LOOKUP_CONCURRENCY, async (sender) => {
      if ((await this.provider.send("eth_getCode", [sender, "latest"])) !== "0x") this.knownDeployed.add(sender);
    });
    return this.knownDeployed;
  }

  /**
   * Broadcasts a recorded bundle. A failure the node may not have meant (timeout, connection) or an "already
   * known" leaves it to tracking; a transaction the node neither mined nor holds was refused, and its requests go
   * back to the queue.
   */
  private async broadcast(bundle: Bundle, kind?: OwnKind): Promise<void> {
    const hash = bundle.txHashes.at(-1)!;
    // A replacement or rebroadcast runs what its earlier version ran; unknown after a restart, it is not counted.
    const ran = kind ?? bundle.txHashes.map((h) => this.own.kindOf(h)).find((k) => k !== undefined);
    if (ran) this.own.add(hash, ran);
    try {
      await this.provider.send("eth_sendRawTransaction", [bundle.rawTx]);
      return;
    } catch (error) {
      if (isTransportError(error)) return;
      const known =
        (await this.provider.send("eth_getTransactionReceipt", [hash])) ??
        (await this.provider.send("eth_getTransactionByHash", [hash]));
      if (known) return;
      if (bundle.txHashes.length > 1) return; // an earlier version may still be mined; tracking decides
      // The node's words (balances, the relayer's address) go to the operator's log, not to the apps.
      this.context.logger.error({ bundle: bundle.id, error: rpcErrorMessage(error) }, "the node refused the bundle");
      await this.settleDropped(bundle, {
        code: "RELAYER_REJECTED",
        message: "the node refused the relayer's transaction; the operator has been told",
      });
    }
  }
}
