import { dataLength } from "ethers";
import type { PackedUserOperation } from "./packedUserOperation";

/**
 * Largest handleOps call data one bundle may have: nodes refuse transactions over 128 KiB (geth's txpool limit),
 * and the signed transaction's envelope and handleOps's own words need a little of it.
 */
export const MAX_BUNDLE_BYTES = 120_000;

/** Bytes an operation adds to handleOps's call data: its dynamic fields, their padding, its heads and lengths. */
export const operationBytes = (
  op: Pick<PackedUserOperation, "initCode" | "callData" | "paymasterAndData" | "signature">,
) =>
  dataLength(op.initCode) +
  dataLength(op.callData) +
  dataLength(op.paymasterAndData) +
  dataLength(op.signature) +
  4 * 31 + // each dynamic field padded to a whole word at most
  32 * 14; // nine heads, four lengths, the operation's offset in the array
