import { ApiError } from "../errors/apiError";

/** The rules a request can be refused by (`rule` of POLICY_DENIED), as the README lists them. */
export type PolicyRule = "chains" | "targets" | "maxValue" | "userDailyCap";

/** 403 POLICY_DENIED: the operator's policy for this app does not allow the request; `rule` names the rule. */
export class PolicyDeniedError extends ApiError {
  constructor(rule: PolicyRule, detail: string, extensions: Readonly<Record<string, unknown>> = {}) {
    super(403, "POLICY_DENIED", "Denied by policy", detail, { rule, ...extensions });
  }
}

/** Whole seconds from `now` until `at`, at least 1 (Retry-After). */
export const secondsUntil = (at: Date, now: Date): number =>
  Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));

/**
 * 429 BUDGET_EXCEEDED: the app's requests on this chain have reserved or used its budget for the period. Says how
 * much is left and, with Retry-After, when enough frees for this request (none if it alone is over the budget).
 */
export class BudgetExceededError extends ApiError {
  constructor(
    chain: string,
    budget: { limitGas: bigint; usedGas: bigint; requestGas: bigint; periodSeconds: number },
    freesAt: Date | undefined,
    now: Date,
  ) {
    const remaining = budget.limitGas > budget.usedGas ? budget.limitGas - budget.usedGas : 0n;
    super(
      429,
      "BUDGET_EXCEEDED",
      "Budget exceeded",
      freesAt
        ? `This app's gas budget on ${chain} has ${remaining} gas left; this request may cost ${budget.requestGas}`
        : `This request may cost ${budget.requestGas} gas, more than this app's whole budget on ${chain}`,
      {
        chain,
        budgetGas: budget.limitGas.toString(),
        remainingGas: remaining.toString(),
        requestGas: budget.requestGas.toString(),
        periodSeconds: budget.periodSeconds,
        freesAt: freesAt?.toISOString() ?? null,
      },
      freesAt ? { "Retry-After": String(secondsUntil(freesAt, now)) } : {},
    );
  }
}

/** 429 RATE_LIMITED: the app sent more spending requests than its rate allows in this window. */
export class AppRateLimitedError extends ApiError {
  constructor(rate: string, retryAfterSeconds: number) {
    super(
      429,
      "RATE_LIMITED",
      "Too many requests",
      `This app may send ${rate} spending requests; retry in ${retryAfterSeconds} s`,
      {},
      { "Retry-After": String(retryAfterSeconds) },
    );
  }
}
