import type { NewSafe, SafeRecord, SafesCursor } from "./safeRecord";
import type { SpendLimit } from "../../transactions/spendLimits";
import type { NewTx, SafeTxRecord, TxRecord, TxStatus } from "../../transactions/txRecord";
import type { TxListRead, TxListWindow } from "../../transactions/txListing";

/** Thrown when a Safe with the same address is already recorded (same owners and salt nonce). */
export class SafeExistsError extends Error {
  override readonly name = "SafeExistsError";
}

/** The requests of one Safe an app created, newest first; the status filter optional. */
export interface SafeTxListQuery extends TxListWindow {
  readonly appId: string;
  readonly chain: string;
  /** The Safe's address, as recorded (EIP-55). */
  readonly address: string;
  readonly status: TxStatus | undefined;
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
  /**
   * The app's requests of one Safe (GET /v1/{chain}/account/{address}/txs), newest first, after `query.after`, those of
   * its status if given, at most `query.limit`, reading at most `query.scan` of them.
   */
  listRequests(query: SafeTxListQuery): Promise<TxListRead<SafeTxRecord>>;
  /** Every Safe on a chain whose recorded owners include `owner`, oldest first (every app's). */
  ownedBy(chain: string, owner: string): Promise<SafeRecord[]>;
  /** Records that `previous` was swapped for `next` among a Safe's owners (as its swapOwner did on chain). */
  replaceOwner(chain: string, address: string, previous: string, next: string): Promise<void>;
}
