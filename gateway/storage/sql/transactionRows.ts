import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import { z } from "zod";
import type { PackedUserOperation } from "../../userop/packedUserOperation";
import type { BundlesTable, TransactionsTable } from "../schema";
import type { Bundle, NewBundle } from "../../transactions/bundle";
import { type NewTx, type TxRecord, isSafeTx } from "../../transactions/txRecord";

/** Rows of `transactions` and `bundles` to domain records and back (JSON columns, bigints as text). */

// Conventions 4: what is read back is parsed.
const StoredCalls = z.array(z.object({ to: z.string(), value: z.string().regex(/^\d+$/), data: z.string() }));
const StoredUserOp = z.object({
  sender: z.string(),
  nonce: z.string(),
  initCode: z.string(),
  callData: z.string(),
  accountGasLimits: z.string(),
  preVerificationGas: z.string(),
  gasFees: z.string(),
  paymasterAndData: z.string(),
  signature: z.string(),
});
export const StoredHashes = z.array(z.string()).min(1);

export const serializeUserOp = (op: PackedUserOperation): string =>
  JSON.stringify({ ...op, nonce: op.nonce.toString(), preVerificationGas: op.preVerificationGas.toString() });

function parseUserOp(json: string): PackedUserOperation {
  const op = StoredUserOp.parse(JSON.parse(json));
  return { ...op, nonce: BigInt(op.nonce), preVerificationGas: BigInt(op.preVerificationGas) };
}

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** The row of a newly accepted request, queued and due at once. */
export function newTransactionRow(tx: NewTx, now: string): Selectable<TransactionsTable> {
  return {
    id: randomUUID(),
    app_id: tx.appId,
    account_type: tx.accountType,
    user_id: isSafeTx(tx) ? "" : tx.userId,
    chain: tx.chain,
    sender: tx.sender,
    calls: JSON.stringify(tx.calls.map((c) => ({ to: c.to, value: c.value.toString(), data: c.data }))),
    delegatecall: tx.delegatecall ? 1 : 0,
    status: "queued",
    idempotency_key: tx.idempotencyKey ?? null,
    request_hash: tx.requestHash,
    user_op: null,
    user_op_hash: null,
    bundle_id: null,
    transaction_hash: null,
    block_number: null,
    success: null,
    error_code: null,
    error_message: null,
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
    safe_action: isSafeTx(tx) ? tx.safeAction : null,
    safe_tx_hash: null,
    safe_nonce: null,
    reserved_gas: Number(tx.reservedGas ?? 0n),
    settled_gas: null,
    spent_gas: 0,
  };
}

// The columns' values, as rows are read back (made once: building a zod schema costs more than a row's parse).
const StoredTxStatus = z.enum(["queued", "submitted", "included", "failed"]);
const StoredAccountType = z.enum(["kernel", "base", "safe"]);
const StoredSafeAction = z.enum(["create", "custom", "transfer", "disperse", "disperseNFT"]);
const StoredBundleStatus = z.enum(["pending", "mined", "dropped"]);

/** A stored request as its kind's record: a Safe request, or a wallet's (`accountType` tells which). */
export function toRecord(row: Selectable<TransactionsTable>): TxRecord {
  const common = {
    id: row.id,
    appId: row.app_id,
    chain: row.chain,
    sender: row.sender,
    calls: StoredCalls.parse(JSON.parse(row.calls)).map((c) => ({ ...c, value: BigInt(c.value) })),
    delegatecall: row.delegatecall === 1,
    idempotencyKey: orUndefined(row.idempotency_key),
    requestHash: row.request_hash,
    status: StoredTxStatus.parse(row.status),
    bundleId: orUndefined(row.bundle_id),
    transactionHash: orUndefined(row.transaction_hash),
    blockNumber: orUndefined(row.block_number),
    success: row.success === null ? undefined : row.success === 1,
    error: row.error_code === null ? undefined : { code: row.error_code, message: row.error_message ?? "" },
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    reservedGas: BigInt(row.reserved_gas),
    settledGas: row.settled_gas === null ? undefined : BigInt(row.settled_gas),
    spentGas: BigInt(row.spent_gas),
  };
  const accountType = StoredAccountType.parse(row.account_type);
  if (accountType === "safe") {
    return {
      ...common,
      accountType,
      safeAction: StoredSafeAction.parse(row.safe_action),
      safeTxHash: orUndefined(row.safe_tx_hash),
      safeNonce: orUndefined(row.safe_nonce),
    };
  }
  return {
    ...common,
    accountType,
    userId: row.user_id,
    userOp: row.user_op === null ? undefined : parseUserOp(row.user_op),
    userOpHash: orUndefined(row.user_op_hash),
  };
}

export function toBundle(row: Selectable<BundlesTable>): Bundle {
  return {
    id: row.id,
    chain: row.chain,
    relayer: row.relayer,
    nonce: row.nonce,
    txHashes: StoredHashes.parse(JSON.parse(row.tx_hashes)),
    rawTx: row.raw_tx,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    status: StoredBundleStatus.parse(row.status),
    minedTxHash: orUndefined(row.mined_tx_hash),
    blockNumber: orUndefined(row.block_number),
    sentAt: row.sent_at,
  };
}

/** The row of a bundle recorded now, pending, before it is broadcast. */
export function newBundleRow(bundle: NewBundle, now: string): Selectable<BundlesTable> {
  return {
    id: randomUUID(),
    chain: bundle.chain,
    relayer: bundle.relayer,
    nonce: bundle.nonce,
    tx_hashes: JSON.stringify([bundle.txHash]),
    raw_tx: bundle.rawTx,
    max_fee_per_gas: bundle.maxFeePerGas.toString(),
    max_priority_fee_per_gas: bundle.maxPriorityFeePerGas.toString(),
    status: "pending",
    mined_tx_hash: null,
    block_number: null,
    created_at: now,
    updated_at: now,
    sent_at: now,
    reverted_gas: null,
  };
}
