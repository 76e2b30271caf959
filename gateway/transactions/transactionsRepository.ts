import type { Fence } from "../leases/lease";
import type { SpendLimit } from "./spendLimits";
import type { Bundle, NewBundle } from "./bundle";
import type { BuiltOp, BuiltUserOp } from "./builtOp";
import type { TxOutcome } from "./txOutcome";
import type { NewTx, TxError, TxRecord, TxStatus, WalletTxRecord } from "./txRecord";
import type { TxListRead, WalletTxListQuery } from "./txListing";

/** The error code a request an operator cancelled is closed with (its GET and its `failed` webhook event say it). */
export const CANCELLED_BY_OPERATOR = "CANCELLED_BY_OPERATOR";

/**
 * A worker recorded a build of a request an operator cancelled while it was being built: the recording stored nothing
 * (markSubmitted, recordBundle), so nothing is sent; the worker leaves that request and its next step starts afresh.
 */
export class RequestClosedError extends Error {
  override readonly name = "RequestClosedError";
  constructor(readonly txId: string) {
    super(`request ${txId} was closed while it was being built; its build is not recorded or sent`);
  }
}

/** What an operator's cancel found: cancelled, or why not (no such request; built or sent already; final). */
export type CancelOutcome = "cancelled" | "missing" | "built" | "final";

/**
 * Transaction requests and bundles (design §1.4: accepted means durable). Each write that changes a request's state
 * hands the request as it left it to the webhooks' outbox step (webhooks/requestEvents.ts) in the same database
 * transaction, so the event the change is, if any, is stored with it or not at all.
 */
export interface TransactionsRepository {
  /**
   * Stores a new request, or returns the app's earlier one with the same Idempotency-Key (`created` false). A new
   * request must fit every limit in `limits` (the app's spend on its chain, and its user id's, over each period),
   * checked in the transaction that stores it: else SpendLimitExceededError and nothing is stored.
   */
  create(tx: NewTx, limits?: readonly SpendLimit[]): Promise<{ record: TxRecord; created: boolean }>;
  find(id: string): Promise<TxRecord | undefined>;
  /**
   * An app's wallet requests of one account type (GET /v1/kernel/tx), newest first, after `query.after`, those its
   * filters keep, at most `query.limit`, reading at most `query.scan` of them.
   */
  listWalletRequests(query: WalletTxListQuery): Promise<TxListRead<WalletTxRecord>>;
  /**
   * This repository as a transaction worker holding a lease uses it: each of its writes (submitting, recording,
   * replacing and settling bundles and requests) first checks `fence` in its transaction and, if the lease has
   * changed holder, throws LeaseLostError and stores nothing.
   */
  fenced(fence: Fence): TransactionsRepository;
  /**
   * A chain's queued requests due by `now`: the oldest of each wallet, oldest first; none of the wallets in
   * `exceptSenders` (their requests are being sent).
   */
  due(chain: string, now: Date, limit: number, exceptSenders?: ReadonlySet<string>): Promise<TxRecord[]>;
  /** A chain's submitted requests (external bundler: the ones awaiting a receipt). */
  submitted(chain: string): Promise<TxRecord[]>;
  /** A chain's requests not final that were built at least once (a signed build of theirs may still run), oldest first. */
  built(chain: string): Promise<TxRecord[]>;
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
  /**
   * An operator's cancel (issue 38): closes a request never built (queued, no attempt: no signed build of it exists)
   * as failed with `error`, releasing the gas it reserved, with its webhook event, in one transaction. A request built
   * once, sent or final is left as it is; the answer says which it was. A worker that was building it finds it closed
   * when it records its bundle, which then stores nothing and is not sent.
   */
  cancelQueued(txId: string, error: TxError): Promise<CancelOutcome>;
  /** Gas each app's requests count for on each chain since `since` (settled, or reserved if not final), for metrics. */
  spendSince(since: ReadonlyMap<string, Date>): Promise<{ appId: string; chain: string; gas: bigint }[]>;
  /** Gas of each chain's reverted wallet bundles, charged to no request: the relayer's own loss, for metrics. */
  revertedGasByChain(): Promise<{ chain: string; gas: bigint }[]>;
  /** How many requests each chain has in each status (queue depth, for metrics). */
  countByStatus(): Promise<{ chain: string; status: TxStatus; count: number }[]>;
}
