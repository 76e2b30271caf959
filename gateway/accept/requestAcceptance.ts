import { createHash } from "node:crypto";
import { ApiError } from "../errors/apiError";
import type { Admission, SpendPolicy, SpendRequest } from "../policy/spendPolicy";
import { FINAL_STATUSES, type TxRecord, isSafeRecord } from "../transactions/txRecord";
import type { TransactionsRepository } from "../transactions/transactionsRepository";
import type { RequestDeadline } from "./requestDeadline";

/**
 * The accept path every request that spends the operator's gas takes, wallet transactions and Safe requests alike:
 * its hash binds its Idempotency-Key, one commit point stores it, and its status is read and waited for the same way.
 */

/** sha256 of a request's normalized parts (bigints as decimal strings): what its Idempotency-Key is bound to. */
export function requestHash(parts: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(parts, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)))
    .digest("hex");
}

/** 409 IDEMPOTENCY_KEY_REUSED: the app already used this Idempotency-Key for another request. */
export class IdempotencyKeyReusedError extends ApiError {
  constructor() {
    super(409, "IDEMPOTENCY_KEY_REUSED", "Conflict", "This Idempotency-Key was used for another request");
  }
}

/** What committing a request needs besides the request. */
export interface AcceptanceDeps {
  /** The app's budget, rate and allowlists (docs/policies.md); its limits hold in the storing write. */
  readonly policy: SpendPolicy;
  /** Told after a request is committed, so a worker in this process starts at once. */
  readonly onAccepted: (chain: string) => void;
}

/** A request checked and admitted, ready to be stored by `store` (which returns the stored or the replayed record). */
export interface AdmittedRequest<R> {
  readonly spend: SpendRequest;
  readonly admission: Admission;
  /** requestHash of the request, stored with it. */
  readonly requestHash: string;
  readonly store: () => Promise<R>;
}

/**
 * The commit point of a request (invariant 4: accepted means durable): stores it through the spend policy (a limit
 * it hits is 429 BUDGET_EXCEEDED or 403 POLICY_DENIED) and the request deadline (once that has answered 503, nothing is
 * stored). A retry of the same request with its Idempotency-Key gets the first record (`created` false); the key with
 * another request is 409. A new request wakes its chain's worker.
 */
export async function commitRequest<
  T extends TxRecord,
  R extends { readonly record: TxRecord; readonly created: boolean },
>(
  request: AdmittedRequest<R>,
  ofKind: (record: TxRecord) => record is T,
  deps: AcceptanceDeps,
  deadline: RequestDeadline,
): Promise<Omit<R, "record"> & { readonly record: T }> {
  const result = await deps.policy.commit(request.spend, request.admission, () => deadline.commit(request.store));
  const { record } = result;
  // The key's earlier request is another request: its hash differs (a request of another kind's always does).
  if (!result.created && (record.requestHash !== request.requestHash || !ofKind(record))) {
    throw new IdempotencyKeyReusedError();
  }
  if (!ofKind(record)) throw new Error(`stored request ${record.id} is not of the kind accepted`);
  if (result.created) deps.onAccepted(request.spend.chain);
  return { ...result, record };
}

/** Request ids are UUIDs: anything else is no request, answered without a lookup. */
const REQUEST_ID = /^[0-9a-f-]{36}$/;

/** The stored request with this id, if `id` can be one. */
export async function findRequest(
  id: string,
  repository: Pick<TransactionsRepository, "find">,
): Promise<TxRecord | undefined> {
  return REQUEST_ID.test(id) ? repository.find(id) : undefined;
}

/** How often a waiting status request re-reads the record. */
const WAIT_POLL_MS = 100;

/** Polls a request until it is final, `timeoutMs` passes, or `signal` aborts; returns its latest state. */
export async function waitForFinal<T extends TxRecord>(
  record: T,
  repository: Pick<TransactionsRepository, "find">,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let current = record;
  while (!FINAL_STATUSES.includes(current.status) && Date.now() < deadline && !options.signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now()))));
    const latest = await repository.find(record.id);
    if (latest && sameKind(record, latest)) current = latest;
  }
  return current;
}

/** Whether `latest` is of `record`'s kind (a request's kind never changes: this narrows its type). */
const sameKind = <T extends TxRecord>(record: T, latest: TxRecord): latest is T =>
  isSafeRecord(record) === isSafeRecord(latest);
