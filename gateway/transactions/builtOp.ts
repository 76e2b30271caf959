import type { PackedUserOperation } from "./packedUserOperation";
import type { TxError } from "./txRecord";

/** A signed UserOperation about to be sent for a wallet request. */
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

/** What a relayer transaction carries for one request. */
export type BuiltOp = BuiltUserOp | BuiltSafeTx;
