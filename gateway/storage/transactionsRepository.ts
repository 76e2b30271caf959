import type { AccountType } from "../identity/walletAddress";
import type { PackedUserOperation } from "../userop/packedUserOperation";
import type { SpendLimit } from "../policy/spendLimits";

/**
 * Lifecycle of a transaction request (README "Transaction states"):
 * `queued` accepted and durable, waiting for the worker; `submitted` its signed UserOperation is on its way
 * to the chain (in a bundle transaction sent by the relayer, or handed to an external bundler);
 * `included` on chain, its calls succeeded or reverted (`success`); `failed` will never be included.
 */
export type TxStatus = "queued" | "submitted" | "included" | "failed";
/** Final states: nothing changes a request after these. */
export const FINAL_STATUSES: readonly TxStatus[] = ["included", "failed"];

/** One call of a request: entry i of the parallel `to` / `value` / `data` arrays. */
export interface TxCall {
  readonly to: string;
  readonly value: bigint;
  readonly data: string;
}

/** Why a request did not do what it asked. */
export interface TxError {
  readonly code: string;
  readonly message: string;
}

/** Kind of account a request acts through: a user's wallet (kernel, base), or a Safe an app created. */
export type TxAccountType = AccountType | "safe";
/** What a Safe request asks for (spec §4.10). */
export type SafeAction = "create" | "custom" | "transfer" | "disperse" | "disperseNFT";

/** A request as accepted, before it is stored. */
export interface NewTx {
  readonly appId: string;
  readonly accountType: TxAccountType;
  readonly userId: string;
  readonly chain: string;
  readonly sender: string;
  readonly calls: readonly TxCall[];
  readonly delegatecall: boolean;
  readonly idempotencyKey: string | undefined;
  readonly requestHash: string;
  /**
   * Safe requests only (`accountType` safe, `sender` the Safe): `create` deploys it (`calls[0]` is the relayer's
   * call of the proxy factory); the others are one Safe transaction (`calls[0]`, DELEGATECALL if `delegatecall`).
   */
  readonly safeAction?: SafeAction;
  /** Gas reserved at acceptance, the most the request can cost the operator (README "Budgets and policies"). */
  readonly reservedGas?: bigint;
}

/** A stored request and where it is in its lifecycle. */
export interface TxRecord extends NewTx {
  readonly id: string;
  readonly status: TxStatus;
  readonly userOp: PackedUserOperation | undefined;
  readonly userOpHash: string | undefined;
  readonly bundleId: string | undefined;
  readonly transactionHash: string | undefined;
  readonly blockNumber: number | undefined;
  /** Whether the calls succeeded; only once included. */
  readonly success: boolean | undefined;
  readonly error: TxError | undefined;
  /** How many times its UserOperation was built. */
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The Safe transaction last built for a Safe request: its EIP-712 hash and the Safe nonce it was signed for. */
  readonly safeTxHash: string | undefined;
  readonly safeNonce: number | undefined;
  /** Gas it did cost once final (its operation's actualGasUsed, or the relayer's gasUsed); undefined before. */
  readonly settledGas: bigint | undefined;
  /** Gas of the mined relayer transactions sent for it alone so far (a Safe relay's), reverted ones included. */
  readonly spentGas: bigint;
}

/** A signed UserOperation about to be sent for a request. */
export interface BuiltUserOp {
  readonly txId: string;
  readonly userOp: PackedUserOperation;
  readonly userOpHash: string;
}

/** A Safe request about to be sent by the relayer: its signed Safe transaction (none for a deployment). */
export interface BuiltSafeTx {
  readonly txId: string;
  readonly safeTx: { readonly hash: string; readonly nonce: number } | undefined;
  /** For a cancellation (the request's nonce used up by a no-op): why the request fails once it ran. */
  readonly error?: TxError;
}

/** What a bundle carries for one request. */
export type BuiltOp = BuiltUserOp | BuiltSafeTx;

/** One handleOps transaction of the built-in bundler. */
export interface Bundle {
  readonly id: string;
  readonly chain: string;
  readonly relayer: string;
  readonly nonce: number;
  /** Every version sent, oldest first (fee bumps replace the newest). */
  readonly txHashes: readonly string[];
  readonly rawTx: string;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly status: "pending" | "mined" | "dropped";
  readonly minedTxHash: string | undefined;
  readonly blockNumber: number | undefined;
  readonly sentAt: string;
}

/** A signed bundle transaction about to be broadcast. */
export interface NewBundle {
  readonly chain: string;
  readonly relayer: string;
  readonly nonce: number;
  readonly txHash: string;
  readonly rawTx: string;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** What became of a request's UserOperation, and the gas its mined relayer transaction burned, if any. */
export type TxOutcome = (
  | {
      readonly status: "included";
      /** Unknown only when the operation's nonce is used but its event was not found (EXECUTED_UNTRACED). */
      readonly transactionHash?: string;
      readonly blockNumber?: number;
      readonly success?: boolean;
      readonly error?: TxError;
      /** Gas it cost the operator, if known; unknown keeps the gas reserved at acceptance. */
      readonly gasUsed?: bigint;
    }
  | {
      readonly status: "failed";
      readonly error: TxError;
      readonly transactionHash?: string;
      readonly blockNumber?: number;
      /** Gas it cost the operator, if it ran on chain; unknown: nothing (it never ran). */
      readonly gasUsed?: bigint;
    }
  /**
   * Back to the queue from `nextAttemptAt`: to be built again (its nonce key keeps it single-use), or, with
   * `closeWhenDue`, only to be closed then (out of attempts: included if an earlier build ran, else failed).
   */
  | {
      readonly status: "queued";
      readonly nextAttemptAt: Date;
      readonly error?: TxError;
      readonly closeWhenDue?: boolean;
      /**
       * The send that ended this way does not count as an attempt: its whole bundle reverted on chain, for a reason
       * the next build re-checks (another operation, or an outsider who front-ran the bundle), not for this one.
       */
      readonly uncharged?: boolean;
    }
) & {
  /**
   * The gasUsed of a mined relayer transaction sent for this request alone (a Safe relay), whatever became of it:
   * added to the request's spent gas, which a final request settles to (with `gasUsed` on top, if given).
   */
  readonly spentGas?: bigint;
};

/** Transaction requests and bundles (design §1.4: accepted means durable). */
export interface TransactionsRepository {
  /**
   * Stores a new request, or returns the app's earlier one with the same Idempotency-Key (`created` false). A new
   * request must fit every limit in `limits` (the app's spend on its chain, and its user id's, over each period),
   * checked in the transaction that stores it: else SpendLimitExceededError and nothing is stored.
   */
  create(tx: NewTx, limits?: readonly SpendLimit[]): Promise<{ record: TxRecord; created: boolean }>;
  find(id: string): Promise<TxRecord | undefined>;
  /** A chain's queued requests due by `now`: the oldest of each wallet, oldest first. */
  due(chain: string, now: Date, limit: number): Promise<TxRecord[]>;
  /** A chain's submitted requests (external bundler: the ones awaiting a receipt). */
  submitted(chain: string): Promise<TxRecord[]>;
  /** Records a request's signed UserOperation as submitted, before it is sent (external bundler). */
  markSubmitted(op: BuiltUserOp): Promise<void>;
  /** Records a bundle and its operations as submitted in one transaction, before it is broadcast. */
  recordBundle(bundle: NewBundle, ops: readonly BuiltOp[]): Promise<Bundle>;
  /** A chain's pending bundles, oldest first. */
  pendingBundles(chain: string): Promise<Bundle[]>;
  /** The requests a bundle carries. */
  bundleOps(bundleId: string): Promise<TxRecord[]>;
  /** Records a fee-bumped replacement of a pending bundle, before it is broadcast. */
  replaceBundleTx(
    bundleId: string,
    replacement: { txHash: string; rawTx: string; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<Bundle>;
  /** Closes a bundle (mined or dropped) and records what became of each of its requests, in one transaction. */
  settleBundle(
    bundleId: string,
    result: { status: "mined" | "dropped"; minedTxHash?: string; blockNumber?: number; revertedGas?: bigint },
    outcomes: ReadonlyMap<string, TxOutcome>,
  ): Promise<void>;
  /** Records what became of one request. */
  settle(txId: string, outcome: TxOutcome): Promise<void>;
  /** Gas each app's requests count for on each chain since `since` (settled, or reserved if not final), for metrics. */
  spendSince(since: ReadonlyMap<string, Date>): Promise<{ appId: string; chain: string; gas: bigint }[]>;
  /** Gas of each chain's reverted wallet bundles, charged to no request: the relayer's own loss, for metrics. */
  revertedGasByChain(): Promise<{ chain: string; gas: bigint }[]>;
  /** How many requests each chain has in each status (queue depth, for metrics). */
  countByStatus(): Promise<{ chain: string; status: TxStatus; count: number }[]>;
}
