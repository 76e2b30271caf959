import type { NewSafe, SafeRecord, SafesCursor } from "./safeRecord";
import type { SpendLimit } from "../../transactions/spendLimits";
import type { NewTx, TxRecord } from "../../transactions/txRecord";

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
  /** Every Safe on a chain whose recorded owners include `owner`, oldest first (every app's). */
  ownedBy(chain: string, owner: string): Promise<SafeRecord[]>;
  /** Records that `previous` was swapped for `next` among a Safe's owners (as its swapOwner did on chain). */
  replaceOwner(chain: string, address: string, previous: string, next: string): Promise<void>;
}
