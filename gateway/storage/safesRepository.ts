import type { SpendLimit } from "../policy/spendLimits";
import type { NewTx, TxRecord } from "./transactionsRepository";

/** A Safe account an app created (spec §4.10): threshold 1 of `owners`, the operator among them. */
export interface SafeRecord {
  readonly chain: string;
  readonly address: string;
  readonly appId: string;
  readonly owners: readonly string[];
  readonly saltNonce: bigint;
  readonly singleton: string;
  readonly proxyFactory: string;
  readonly fallbackHandler: string;
  /** The request that deploys it. */
  readonly deploymentTxId: string;
  readonly createdAt: string;
}

/** A Safe as created, before it is stored. */
export type NewSafe = Omit<SafeRecord, "deploymentTxId" | "createdAt">;

/** Where a page of an app's Safes starts: after this one (oldest first). */
export interface SafesCursor {
  readonly createdAt: string;
  readonly address: string;
}

/** Thrown when a Safe with the same address is already recorded (same owners and salt nonce). */
export class SafeExistsError extends Error {
  override readonly name = "SafeExistsError";
}

/** Safe accounts and their deployment requests. */
export interface SafesRepository {
  /**
   * Stores a new Safe and the request that deploys it in one transaction, committed as every accepted request is
   * (accepted means durable), or returns the app's earlier request with the same Idempotency-Key (`created` false)
   * and its Safe. Throws SafeExistsError if the address is taken, SpendLimitExceededError if the deployment does not
   * fit `limits` (nothing is stored).
   */
  create(
    safe: NewSafe,
    deployment: NewTx,
    limits?: readonly SpendLimit[],
  ): Promise<{ safe: SafeRecord | undefined; record: TxRecord; created: boolean }>;
  find(chain: string, address: string): Promise<SafeRecord | undefined>;
  /** An app's Safes on a chain, oldest first, `limit` from after `cursor`. */
  list(appId: string, chain: string, limit: number, cursor?: SafesCursor): Promise<SafeRecord[]>;
}
