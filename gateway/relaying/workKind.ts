import type { BuiltOp } from "../transactions/builtOp";
import type { TxOutcome } from "../transactions/txOutcome";
import type { TxRecord, WalletTxRecord } from "../transactions/txRecord";
import type { Fees } from "../chains/fees";
import type { OwnKind, OwnTransactions } from "./ownTransactions";

/** The built-in relayer as a kind sees it: its address, and the transactions it broadcast lately. */
export interface Relayer {
  readonly address: string;
  readonly own: OwnTransactions;
}

/** Requests of one kind prepared (built, simulated, signed) for one relayer transaction, not yet checked. */
export interface Prepared<Batch = unknown> {
  readonly kind: WorkKind<Batch>;
  /** When its preparation started (ms): prepared ahead and kept waiting too long, it is prepared again. */
  readonly at: number;
  readonly fees: Fees;
  /** The wallets (or Safes) it carries: the next relayer transaction is prepared from others meanwhile. */
  readonly senders: readonly string[];
  readonly batch: Batch;
}

/** What preparing found: requests to send, requests only settled (closed or failed), or nothing to do now. */
export type Preparation<Batch = unknown> = Prepared<Batch> | "settled" | "idle";

/** The call a relayer transaction makes, and what it records for each request it carries. */
export interface RelayerCall {
  readonly to: string;
  readonly data: string;
  readonly gasLimit: bigint;
  readonly ops: readonly BuiltOp[];
  /** What it may take from the paymaster's deposit at most (its operations' prefunds); none if unset. */
  readonly prefunds?: bigint;
  /**
   * The L1 data fee the chain charges the relayer for it besides its gas (an OP-stack chain), at most: what its
   * operations' preVerificationGas holds for it at their fees. None if unset.
   */
  readonly l1DataFee?: bigint;
}

/** A mined relayer transaction's eth_getTransactionReceipt answer, the fields the worker reads. */
export interface RelayerReceipt {
  readonly status: string;
  readonly blockNumber: string;
  readonly gasUsed: string;
  /** An OP-stack chain's L1 data fee of the transaction (wei, op-geth's receipt field); absent elsewhere. */
  readonly l1Fee?: string;
  readonly effectiveGasPrice?: string;
  readonly transactionHash: string;
  readonly logs: readonly {
    address: string;
    topics: string[];
    data: string;
    transactionHash: string;
    blockNumber: string;
  }[];
}

/**
 * One kind of queued request: a wallet's UserOperation (bundled into handleOps) or a Safe transaction (relayed one
 * per relayer transaction). The worker's stages are the same for every kind; what differs is asked of the kind,
 * chosen once for each request by its record (WorkKinds.of), and typed by the record it takes (`Tx`): a kind never
 * sees another kind's requests.
 */
export interface WorkKind<Batch = unknown, Tx extends TxRecord = TxRecord> {
  /** What its relayer transactions run, for the pre-broadcast check's own-blocks skip. */
  readonly runs: OwnKind;
  /**
   * Whether a mined relayer transaction's gas is charged to the requests it carried (it was sent for them alone);
   * if not, the gas of one that reverted is recorded as the relayer's own loss.
   */
  readonly chargesRelayerGas: boolean;
  /**
   * Prepares due requests of this kind (oldest first) for one relayer transaction: built, simulated and signed.
   * Those that need no sending (failed, or found done) are settled here. `ahead`: prepared while another relayer
   * transaction of ours is in flight, so a failure may not be final yet.
   */
  prepare(
    due: readonly Tx[],
    options: { readonly relayer: Relayer; readonly at: number; readonly ahead: boolean },
  ): Promise<Preparation<Batch>>;
  /**
   * The pre-broadcast check, and what the relayer sends: the call for what of a prepared batch still holds against
   * the chain (the others settled or left for later), or undefined when nothing of it is to be sent now. `behind`: it
   * is to go behind pending relayer transactions of ours, whose effects the chain's latest block does not show yet.
   */
  check(prepared: Prepared<Batch>, relayer: Relayer, behind: boolean): Promise<RelayerCall | undefined>;
  /** What became of each of `txs`, carried by a relayer transaction mined with `receipt`, by request id. */
  outcomesOfReceipt(txs: readonly Tx[], receipt: RelayerReceipt): Promise<Map<string, TxOutcome>>;
  /**
   * What became of a request that was sent but is not in what was mined (its relayer transaction dropped, or, when
   * `bundleReverted`, reverted as a whole): found done on chain, or back to the queue.
   */
  outcomeWhenMissing(tx: Tx, bundleReverted: boolean): Promise<TxOutcome>;
  /**
   * How a due request out of attempts is closed: its final outcome, or undefined to prepare it all the same (the
   * kind decides running out itself).
   */
  giveUp(tx: Tx): Promise<TxOutcome | undefined>;
  /**
   * On a chain whose operations go to an external ERC-4337 bundler: the UserOperation request that bundler carries
   * (this kind's record is one); else (only the built-in relayer sends it) the outcome a due request is settled
   * with, or "wait" to leave it be.
   */
  withExternalBundler(tx: Tx): { readonly userOperation: WalletTxRecord } | "wait" | TxOutcome;
}

/** The kinds of work of a chain's worker. */
export interface WorkKinds {
  /** The kind a request is, by its record. */
  of(tx: TxRecord): WorkKind;
}
