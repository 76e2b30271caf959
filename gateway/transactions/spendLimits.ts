import {
  type SpendEntry,
  type SpendKey,
  type SpendWindowReader,
  appSpendKey,
  bucketEntries,
  firstMinuteAfter,
  usedGas,
  userSpendKey,
} from "./spendWindow";
import { type NewTx, isSafeTx } from "./txRecord";

/**
 * Spend limits checked in the same database transaction that stores a request (design §1.7, §6): two processes
 * accepting at once cannot both take the last of a budget.
 */

/** Which rule a limit enforces: the app's budget on the request's chain, or one user id's daily cap there. */
export type SpendRule = "budget" | "userDailyCap";

/** A cap on the gas an app's requests (or one user id's of them) may cost on a chain over a rolling period. */
export interface SpendLimit {
  readonly rule: SpendRule;
  readonly limitGas: bigint;
  readonly periodSeconds: number;
}

/** A request the limit has no room for; nothing was stored. */
export class SpendLimitExceededError extends Error {
  override readonly name = "SpendLimitExceededError";

  constructor(
    readonly limit: SpendLimit,
    /** Gas the window counts now: settled cost of final requests, reserved worst case of the others. */
    readonly usedGas: bigint,
    /** The worst case this request would reserve. */
    readonly requestGas: bigint,
    /** When enough of the window has rolled off for this request to fit; undefined if it never fits. */
    readonly freesAt: Date | undefined,
  ) {
    super(`${limit.rule}: ${usedGas} of ${limit.limitGas} gas used; this request reserves ${requestGas}`);
  }
}

/**
 * When a request of `requestGas` fits under the limit, as the oldest entries roll off (`entries` oldest first);
 * undefined if it is larger than the limit itself.
 */
export function whenItFits(
  limit: SpendLimit,
  entries: readonly SpendEntry[],
  usedGas: bigint,
  requestGas: bigint,
): Date | undefined {
  if (requestGas > limit.limitGas) return undefined;
  let remaining = usedGas;
  for (const entry of entries) {
    remaining -= entry.gas;
    if (remaining + requestGas <= limit.limitGas) {
      return new Date(Date.parse(entry.createdAt) + limit.periodSeconds * 1000);
    }
  }
  return undefined;
}

/** The key a limit sums for a request: one user id's for its daily cap (a wallet request's), else the app's. */
export function limitKeyOf(limit: SpendLimit, tx: NewTx): SpendKey {
  return limit.rule === "userDailyCap" && !isSafeTx(tx)
    ? userSpendKey(tx.appId, tx.userId, tx.chain)
    : appSpendKey(tx.appId, tx.chain);
}

/**
 * Throws SpendLimitExceededError if `tx` does not fit `limit` beside what the window already counts (spendWindow.ts:
 * within the period, the gas of the requests accepted there, by minute bucket, and every reservation still pending,
 * whatever its age). `reader` reads inside the transaction that stores `tx`, so concurrent acceptances serialize.
 * Reads at most a period's buckets, however many requests the window holds.
 */
export async function checkSpendLimit(
  reader: SpendWindowReader,
  tx: NewTx,
  limit: SpendLimit,
  now: Date,
): Promise<void> {
  const firstMinute = firstMinuteAfter(new Date(now.getTime() - limit.periodSeconds * 1000));
  const key = limitKeyOf(limit, tx);
  const used = usedGas(await reader.sums(key, firstMinute));
  const requestGas = tx.reservedGas ?? 0n;
  if (used + requestGas <= limit.limitGas) return;
  // Only a refusal reads the window bucket by bucket, to say when the request would fit (pending reservations
  // assumed settled by the time their bucket leaves the window; overdue ones never leave it by time).
  const freesAt = whenItFits(limit, bucketEntries(await reader.buckets(key, firstMinute)), used, requestGas);
  throw new SpendLimitExceededError(limit, used, requestGas, freesAt);
}
