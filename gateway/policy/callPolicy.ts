import { z } from "zod";
import { ApiError } from "../errors/apiError";
import type { TxCall } from "../transactions/txRecord";

/**
 * Why a call of a user's request is refused (stable, documented in the README):
 * - `SELF_CALL`: it targets the wallet itself, where `transferOwnership` and other self-only functions live;
 * - `OWNER_ACCOUNT_CALL`: it targets the operator's OwnerAccount, which holds every wallet;
 * - `DELEGATECALL_NOT_GRANTED`: the request is a delegatecall (the target's code runs as the wallet and can rewrite
 *   its owner slot) and the operator has not granted this app delegatecall.
 */
export const CallRefusalReason = z.enum(["SELF_CALL", "OWNER_ACCOUNT_CALL", "DELEGATECALL_NOT_GRANTED"]);
/** See {@link CallRefusalReason}. */
export type CallRefusalReason = z.infer<typeof CallRefusalReason>;

/** One refused call: its index in `to` / `value` / `data`, its target as the request was parsed (EIP-55), and why. */
export interface RefusedCall {
  readonly index: number;
  readonly to: string;
  readonly reason: CallRefusalReason;
}

const DESCRIPTIONS: Readonly<Record<CallRefusalReason, string>> = {
  SELF_CALL: "targets the wallet itself",
  OWNER_ACCOUNT_CALL: "targets the owner account",
  DELEGATECALL_NOT_GRANTED: "is a delegatecall, which this app has not been granted",
};

/** 403 CALL_NOT_ALLOWED: the request would let the app take the wallet over; `calls` names each refused call. */
export class CallNotAllowedError extends ApiError {
  constructor(readonly calls: readonly RefusedCall[]) {
    super(
      403,
      "CALL_NOT_ALLOWED",
      "Call not allowed",
      calls.map((call) => `call ${call.index} ${DESCRIPTIONS[call.reason]}`).join("; "),
      { calls },
    );
  }
}

/** What a request may not do from a wallet: its own address, the owner account, and whether it may delegatecall. */
export interface CallRules {
  /** The wallet the request acts through (the sender of its UserOperation). */
  readonly wallet: string;
  /** The configured OwnerAccount, if any. */
  readonly ownerAccount: string | undefined;
  readonly delegatecall: boolean;
  readonly delegatecallGranted: boolean;
}

/**
 * Refuses, with CallNotAllowedError listing every offence, a request whose calls could take the wallet over: a call
 * to the wallet itself or to the owner account, or an ungranted delegatecall.
 *
 * Not refused, on purpose: the factory (`createAccount` is idempotent and only deploys wallets owned by the owner
 * account), the SponsorPaymaster (its state changes are owner-only, so a wallet can at most add to its deposit), and
 * the EntryPoint (a wallet can only move its own deposit and stake, `withdrawTo` included, and `handleOps` is
 * non-reentrant); blocking them would only break legitimate use.
 */
export function checkCallRules(calls: readonly TxCall[], rules: CallRules): void {
  const wallet = rules.wallet.toLowerCase();
  const ownerAccount = rules.ownerAccount?.toLowerCase();
  const refused: RefusedCall[] = [];
  calls.forEach((call, index) => {
    // Addresses arrive in any case (EIP-55 or not); the comparison must not be fooled by it.
    const target = call.to.toLowerCase();
    if (target === wallet) refused.push({ index, to: call.to, reason: "SELF_CALL" });
    if (ownerAccount !== undefined && target === ownerAccount) {
      refused.push({ index, to: call.to, reason: "OWNER_ACCOUNT_CALL" });
    }
    if (rules.delegatecall && !rules.delegatecallGranted) {
      refused.push({ index, to: call.to, reason: "DELEGATECALL_NOT_GRANTED" });
    }
  });
  if (refused.length > 0) throw new CallNotAllowedError(refused);
}
