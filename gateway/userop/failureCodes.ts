import type { TxError } from "../transactions/txRecord";

/** What the worker does after an EntryPoint rejection: give up, or build the operation again. */
export type FailureAction = "fail" | "retry";

interface FailureCode {
  readonly code: string;
  readonly action: FailureAction;
}

/**
 * ERC-4337 v0.7 EntryPoint `FailedOp` reasons (the AAxx prefix) → the stable codes the API reports (README
 * "Transaction states"). `retry` reasons are ones a fresh build fixes (the wallet got deployed meanwhile, a
 * sponsorship window passed, the paymaster deposit was topped up); the request keeps its nonce key, so a rebuilt
 * operation can never execute in addition to an earlier one.
 */
const AA_CODES: Readonly<Record<string, FailureCode>> = {
  AA10: { code: "WALLET_ALREADY_DEPLOYED", action: "retry" },
  AA13: { code: "WALLET_DEPLOYMENT_FAILED", action: "fail" },
  AA14: { code: "WALLET_DEPLOYMENT_FAILED", action: "fail" },
  AA15: { code: "WALLET_DEPLOYMENT_FAILED", action: "fail" },
  AA20: { code: "WALLET_NOT_DEPLOYED", action: "fail" },
  AA21: { code: "PREFUND_NOT_PAID", action: "fail" },
  AA22: { code: "OPERATION_EXPIRED", action: "retry" },
  AA23: { code: "WALLET_VALIDATION_REVERTED", action: "fail" },
  AA24: { code: "WALLET_SIGNATURE_INVALID", action: "fail" },
  AA25: { code: "NONCE_ALREADY_USED", action: "fail" },
  AA26: { code: "VERIFICATION_GAS_EXCEEDED", action: "retry" },
  AA30: { code: "PAYMASTER_NOT_DEPLOYED", action: "fail" },
  AA31: { code: "PAYMASTER_DEPOSIT_LOW", action: "retry" },
  AA32: { code: "SPONSORSHIP_EXPIRED", action: "retry" },
  AA33: { code: "PAYMASTER_VALIDATION_REVERTED", action: "fail" },
  AA34: { code: "SPONSOR_SIGNATURE_INVALID", action: "fail" },
  AA36: { code: "PAYMASTER_GAS_EXCEEDED", action: "retry" },
  AA40: { code: "VERIFICATION_GAS_EXCEEDED", action: "retry" },
  AA41: { code: "VERIFICATION_GAS_EXCEEDED", action: "retry" },
  AA50: { code: "PAYMASTER_POSTOP_FAILED", action: "fail" },
  AA51: { code: "PREFUND_BELOW_COST", action: "retry" },
  AA95: { code: "BUNDLE_OUT_OF_GAS", action: "retry" },
};

/** A rejection of one operation, with the stable code and what to do about it. */
export interface OperationFailure extends TxError {
  readonly action: FailureAction;
}

/** Maps an EntryPoint (or bundler) reason such as "AA24 signature error" to a stable code. */
export function failureFromReason(reason: string): OperationFailure {
  const aa = /AA\d\d/.exec(reason)?.[0];
  const known = aa === undefined ? undefined : AA_CODES[aa];
  if (known) return { ...known, message: reason };
  return { code: "OPERATION_REJECTED", action: "fail", message: reason };
}

/**
 * failureFromReason for an operation paid by `paymaster`: under the CustodyPaymaster (wallet code 2.1) the paymaster's
 * signature is the custody key's, the wallet's own authorization, so its AA34 is reported as the wallet signature's
 * (WALLET_SIGNATURE_INVALID, as AA24 is for code 2.0.0): apps see one code when the operator's key no longer counts.
 */
export function failureOfOperation(
  reason: string,
  paymaster: string | undefined,
  custodyPaymaster: string | undefined,
): OperationFailure {
  const failure = failureFromReason(reason);
  const custodial =
    custodyPaymaster !== undefined &&
    paymaster !== undefined &&
    paymaster.toLowerCase() === custodyPaymaster.toLowerCase();
  return custodial && failure.code === "SPONSOR_SIGNATURE_INVALID" ? { ...AA_CODES.AA24!, message: reason } : failure;
}
