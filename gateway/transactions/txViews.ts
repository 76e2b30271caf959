import type { SafeTxRecord, TxRecord, WalletTxRecord } from "./txRecord";
import { isSafeRecord } from "./txRecord";

/** The API's view of a wallet request (TxStatusResponse): the body of `GET /v1/kernel/tx/{id}`. */
export function transactionView(record: WalletTxRecord) {
  return {
    id: record.id,
    status: record.status,
    userId: record.userId,
    chain: record.chain,
    sender: record.sender,
    userOpHash: record.userOpHash ?? null,
    transactionHash: record.transactionHash ?? null,
    blockNumber: record.blockNumber ?? null,
    success: record.success ?? null,
    error: record.error ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The API's view of a Safe request (SafeTxStatus): the body of `GET /v1/{chain}/account/{address}/tx/{txUuid}`. */
export function safeTransactionView(record: SafeTxRecord) {
  return {
    txUuid: record.id,
    action: record.safeAction,
    status: record.status,
    chain: record.chain,
    safe: record.sender,
    safeTxHash: record.safeTxHash ?? null,
    transactionHash: record.transactionHash ?? null,
    blockNumber: record.blockNumber ?? null,
    error: record.error ?? null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** A request's public record, whatever its kind: what its GET answers (and what its webhook events carry). */
export function publicView(record: TxRecord) {
  return isSafeRecord(record) ? safeTransactionView(record) : transactionView(record);
}
