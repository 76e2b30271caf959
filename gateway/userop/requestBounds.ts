import { dataLength } from "ethers";
import { ApiError, type FieldProblem } from "../errors/apiError";
import type { AccountType } from "../identity/walletAddress";
import type { TxCall } from "../transactions/txRecord";
import { MAX_BUNDLE_BYTES, operationBytes } from "./operationSize";
import { preVerificationGasBound } from "./preVerificationGas";
import { walletCallData } from "./callData";

/** How large a request may be (TX_MAX_CALL_BYTES, TX_MAX_CALL_DATA_BYTES, TX_MAX_PRE_VERIFICATION_GAS). */
export interface RequestBounds {
  readonly maxCallBytes: number;
  readonly maxCallDataBytes: number;
  readonly maxPreVerificationGas: number;
}

/** Which bound a request broke: a setting's name, or BUNDLE_SIZE (what one bundle transaction carries). */
export type RequestLimit =
  "TX_MAX_CALL_BYTES" | "TX_MAX_CALL_DATA_BYTES" | "TX_MAX_PRE_VERIFICATION_GAS" | "BUNDLE_SIZE";

/** 400 CALL_DATA_TOO_LARGE: a request over one of its bounds; `limit` names which. */
export class RequestTooLargeError extends ApiError {
  constructor(limit: RequestLimit, detail: string, errors: readonly FieldProblem[] = []) {
    super(400, "CALL_DATA_TOO_LARGE", "Invalid request", detail, { limit, ...(errors.length > 0 ? { errors } : {}) });
  }
}

/** The costliest sender, nonce and deployment initCode (factory ‖ createAccount(bytes32)) any request can have. */
const WORST_SENDER = `0x${"ff".repeat(20)}`;
const WORST_NONCE = (1n << 256n) - 1n;
const WORST_INIT_CODE = `0x${"ff".repeat(20 + 4 + 32)}`;
const WORST_PAYMASTER_AND_DATA = `0x${"ff".repeat(20 + 32 + 12 + 65)}`;
const WORST_SIGNATURE = `0x${"ff".repeat(65)}`;

/**
 * Refuses, before anything is stored, a request whose operation could be too large (design §1.7): a call over
 * TX_MAX_CALL_BYTES, call data over TX_MAX_CALL_DATA_BYTES in all, an operation over what one bundle transaction
 * carries, or one that could need more than TX_MAX_PRE_VERIFICATION_GAS. The operation is counted at its largest
 * (the wallet still to deploy, every signed word non-zero), so what passes here passes the worker's own checks.
 * Returns that most bytes of its operation in a bundle's call data (what an L1 data fee is charged for).
 */
export function checkRequestBounds(
  type: AccountType,
  calls: readonly TxCall[],
  delegatecall: boolean,
  bounds: RequestBounds,
): { readonly operationBytes: number } {
  const sizes = calls.map((call) => dataLength(call.data));
  const over = sizes.flatMap((size, index) => (size > bounds.maxCallBytes ? [{ index, size }] : []));
  if (over.length > 0) {
    throw new RequestTooLargeError(
      "TX_MAX_CALL_BYTES",
      `A call carries at most ${bounds.maxCallBytes} bytes of data (TX_MAX_CALL_BYTES); call ${over[0]!.index} has ${over[0]!.size}`,
      over.map(({ index, size }) => ({ pointer: `/data/${index}`, detail: `${size} bytes` })),
    );
  }
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total > bounds.maxCallDataBytes) {
    throw new RequestTooLargeError(
      "TX_MAX_CALL_DATA_BYTES",
      `A request carries at most ${bounds.maxCallDataBytes} bytes of call data (TX_MAX_CALL_DATA_BYTES); this one has ${total}`,
    );
  }
  const { bytes, preVerificationGas } = operationBound(type, calls, delegatecall);
  if (bytes > MAX_BUNDLE_BYTES) {
    throw new RequestTooLargeError(
      "BUNDLE_SIZE",
      `Its operation would have up to ${bytes} bytes; a bundle transaction carries at most ${MAX_BUNDLE_BYTES}`,
    );
  }
  // Paid by the paymaster like gas used, and not bounded by TX_MAX_CALL_GAS: the call data's share, chiefly.
  if (preVerificationGas > BigInt(bounds.maxPreVerificationGas)) {
    throw new RequestTooLargeError(
      "TX_MAX_PRE_VERIFICATION_GAS",
      `Its operation could need ${preVerificationGas} preVerificationGas; this deployment sponsors at most ${bounds.maxPreVerificationGas} (TX_MAX_PRE_VERIFICATION_GAS)`,
    );
  }
  return { operationBytes: bytes };
}

/**
 * The most bytes (in a bundle's handleOps call data) and preVerificationGas any operation of these calls can have:
 * counted with the wallet still to deploy and every word the build fills in at its costliest.
 */
export function operationBound(
  type: AccountType,
  calls: readonly TxCall[],
  delegatecall: boolean,
): { bytes: number; preVerificationGas: bigint } {
  const base = { sender: WORST_SENDER, nonce: WORST_NONCE, initCode: WORST_INIT_CODE };
  const callData = walletCallData(type, calls, delegatecall);
  return {
    bytes: operationBytes({
      ...base,
      callData,
      paymasterAndData: WORST_PAYMASTER_AND_DATA,
      signature: WORST_SIGNATURE,
    }),
    preVerificationGas: preVerificationGasBound({ ...base, callData }, WORST_SENDER),
  };
}
