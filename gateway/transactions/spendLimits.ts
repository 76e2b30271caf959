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

/** One counted part of a window (a minute bucket): when its requests count as accepted and the gas they count for. */
export interface SpendEntry {
  readonly createdAt: string;
  readonly gas: bigint;
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
