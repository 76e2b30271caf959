import type { TxOutcome } from "../../transactions/txOutcome";
import type { WalletTxRecord } from "../../transactions/txRecord";
import { encodeHandleOps } from "../opsAbi";
import type { OperationContext } from "./operationContext";
import type { Preparation, Prepared, Relayer, RelayerCall, RelayerReceipt, WorkKind } from "../../relaying/workKind";
import { bundleGasLimit } from "./bundleCheck";
import { buildBundle } from "./buildBundle";
import { includedOutcome, operationEvents } from "./operationEvents";
import { closeExhausted, outcomeOfMissingOperation } from "./operationOutcomes";
import { type SimulatedBundle, maxFeeOf, opsToBroadcast, operationPrefund } from "./preBroadcast";
import { l1DataGasOf } from "../operationGas";

/**
 * Wallet requests: ERC-4337 UserOperations, as many as fit bundled into one EntryPoint.handleOps transaction, or
 * each handed to an external bundler.
 */
export class UserOperationKind implements WorkKind<SimulatedBundle> {
  readonly runs = "bundle";
  readonly chargesRelayerGas = false;
  /** Wallets seen with code: they stay deployed, so they are not looked up again. */
  private readonly knownDeployed = new Set<string>();

  constructor(private readonly context: OperationContext) {}

  /** Builds, simulates and signs the operations of a bundle (buildBundle). */
  async prepare(due: readonly WalletTxRecord[], options: { at: number }): Promise<Preparation<SimulatedBundle>> {
    const built = await buildBundle(this.context, due, this.knownDeployed);
    if (!built) return "settled";
    const senders = built.bundle.ops.map((op) => op.userOp.sender);
    return { kind: this, at: options.at, fees: built.fees, senders, batch: built.bundle };
  }

  /** The operations that still hold (opsToBroadcast), in one handleOps call with the relayer as beneficiary. */
  async check(
    prepared: Prepared<SimulatedBundle>,
    relayer: Relayer,
    behind: boolean,
  ): Promise<RelayerCall | undefined> {
    const ops = await opsToBroadcast(this.context, relayer.address, prepared.batch, {
      own: relayer.own,
      knownDeployed: this.knownDeployed,
      behind,
    });
    if (ops.length === 0) return undefined;
    const data = encodeHandleOps(
      ops.map((op) => op.userOp),
      relayer.address,
    );
    const prefunds = ops.reduce((sum, op) => sum + operationPrefund(op.userOp), 0n);
    const l1DataFee = ops.reduce((sum, op) => sum + l1DataGasOf(op.userOp) * maxFeeOf(op.userOp), 0n);
    return { to: this.context.entryPoint, data, gasLimit: bundleGasLimit(ops, data), ops, prefunds, l1DataFee };
  }

  /** Each operation by its UserOperationEvent in the receipt; one without is looked up by its nonce key. */
  async outcomesOfReceipt(txs: readonly WalletTxRecord[], receipt: RelayerReceipt): Promise<Map<string, TxOutcome>> {
    const reverted = receipt.status !== "0x1";
    const logs = receipt.logs.map((log) => ({ ...log, blockNumber: Number(log.blockNumber) }));
    const events = operationEvents(logs, this.context.entryPoint);
    const outcomes = new Map<string, TxOutcome>();
    for (const tx of txs) {
      const event = tx.userOpHash === undefined ? undefined : events.get(tx.userOpHash.toLowerCase());
      // An operation that ran passed validation, so its wallet exists now (deployed by it or before).
      if (event) this.knownDeployed.add(tx.sender);
      outcomes.set(tx.id, event ? includedOutcome(event) : await outcomeOfMissingOperation(this.context, tx, reverted));
    }
    return outcomes;
  }

  /** Included if any build of it executed (its nonce key is used), else built again (outcomeOfMissingOperation). */
  outcomeWhenMissing(tx: WalletTxRecord, bundleReverted: boolean): Promise<TxOutcome> {
    return outcomeOfMissingOperation(this.context, tx, bundleReverted);
  }

  /** Closed: included if a build of it executed, else failed (closeExhausted). */
  giveUp(tx: WalletTxRecord): Promise<TxOutcome> {
    return closeExhausted(this.context, tx);
  }

  /** An external bundler carries UserOperations. */
  withExternalBundler(tx: WalletTxRecord): { userOperation: WalletTxRecord } {
    return { userOperation: tx };
  }
}
