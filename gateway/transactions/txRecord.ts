import type { AccountType } from "../identity/walletAddress";
import type { PackedUserOperation } from "./packedUserOperation";

/**
 * Lifecycle of a transaction request (docs/transactions.md, "Transaction states"):
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

/** What every accepted request carries, whatever account it acts through. */
interface AcceptedRequest {
  readonly appId: string;
  readonly chain: string;
  /** The account that acts: the user's wallet, or the Safe. */
  readonly sender: string;
  readonly calls: readonly TxCall[];
  readonly delegatecall: boolean;
  readonly idempotencyKey: string | undefined;
  readonly requestHash: string;
  /** Gas reserved at acceptance, the most the request can cost the operator (docs/policies.md). */
  readonly reservedGas?: bigint;
}

/** A request through a user's wallet: one UserOperation, signed by the owner key for `userId`'s wallet. */
export interface NewWalletTx extends AcceptedRequest {
  readonly accountType: AccountType;
  /** The canonical user id whose wallet `sender` is. */
  readonly userId: string;
}

/**
 * A request on a Safe an app created, relayed as one Safe transaction: `create` deploys it (`calls[0]` is the
 * relayer's call of the proxy factory); the others run `calls[0]` (DELEGATECALL if `delegatecall`).
 */
export interface NewSafeTx extends AcceptedRequest {
  readonly accountType: "safe";
  readonly safeAction: SafeAction;
}

/** A request as accepted, before it is stored; its kind is told by `accountType`. */
export type NewTx = NewWalletTx | NewSafeTx;

/** Where a stored request is in its lifecycle, whatever its kind. */
interface Lifecycle {
  readonly id: string;
  readonly status: TxStatus;
  readonly bundleId: string | undefined;
  readonly transactionHash: string | undefined;
  readonly blockNumber: number | undefined;
  /** Whether the calls succeeded; only once included. */
  readonly success: boolean | undefined;
  readonly error: TxError | undefined;
  /** How many times it was built (its UserOperation, or its Safe transaction). */
  readonly attempts: number;
  readonly nextAttemptAt: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Gas it did cost once final (its operation's actualGasUsed, or the relayer's gasUsed); undefined before. */
  readonly settledGas: bigint | undefined;
  /** Gas of the mined relayer transactions sent for it alone so far (a Safe relay's), reverted ones included. */
  readonly spentGas: bigint;
}

/** A stored wallet request: the UserOperation last built for it, once built. */
export interface WalletTxRecord extends NewWalletTx, Lifecycle {
  readonly userOp: PackedUserOperation | undefined;
  readonly userOpHash: string | undefined;
}

/** A stored Safe request: the Safe transaction last built for it (its EIP-712 hash and Safe nonce), once built. */
export interface SafeTxRecord extends NewSafeTx, Lifecycle {
  readonly safeTxHash: string | undefined;
  readonly safeNonce: number | undefined;
}

/** A stored request and where it is in its lifecycle, discriminated by `accountType` ("safe" or a wallet's). */
export type TxRecord = WalletTxRecord | SafeTxRecord;

/** Whether a request acts through a Safe (relayed as a Safe transaction) rather than a user's wallet. */
export const isSafeTx = <T extends NewTx>(tx: T): tx is Extract<T, NewSafeTx> => tx.accountType === "safe";
/** Whether a stored request is a Safe request. */
export const isSafeRecord = (tx: TxRecord): tx is SafeTxRecord => tx.accountType === "safe";
/** Whether a stored request is a wallet's. */
export const isWalletRecord = (tx: TxRecord): tx is WalletTxRecord => tx.accountType !== "safe";
