import type { App } from "../auth/app";
import type { RateWindowsRepository } from "./rateWindowsRepository";
import { type SpendLimit, SpendLimitExceededError } from "../transactions/spendLimits";
import type { TxCall } from "../transactions/txRecord";
import { type PolicyDefaults, effectivePolicy } from "./effectivePolicy";
import { AppRateLimitedError, BudgetExceededError, PolicyDeniedError, secondsUntil } from "./policyErrors";
import { formatRate } from "../config/policySettings";
import { worstCaseGas } from "./worstCaseGas";

/** What the spend policy needs. */
export interface SpendPolicyDeps {
  readonly defaults: PolicyDefaults;
  readonly rateWindows: RateWindowsRepository;
  /** TX_MAX_CALL_GAS: bounds the worst case of a wallet request. */
  readonly maxCallGas: number;
  readonly clock: () => Date;
}

/** A request that spends the operator's gas, as the policy sees it. */
export interface SpendRequest {
  readonly chain: string;
  /** The calls the app asked for; for a Safe, only a `custom` call's is checked against targets and value. */
  readonly calls: readonly TxCall[];
  readonly account: "wallet" | "safe";
  /** The user id a wallet request acts for (its daily cap); undefined for a Safe. */
  readonly userId: string | undefined;
  /** Whether `calls` are the app's own choice of target and value (wallet requests, Safe `custom`). */
  readonly checkCalls: boolean;
  /** Whether the calls are delegatecalls: the target's code then makes whatever calls it likes, as the account. */
  readonly delegatecall?: boolean;
  /**
   * The L1 data fee its operation may be charged, in gas (chains with an L1 data fee; userop/l1DataReservation.ts):
   * reserved with its L2 gas. 0 or unset elsewhere.
   */
  readonly l1DataGas?: bigint;
}

/** A request the policy admits: the gas it reserves and the limits that must hold when it is stored. */
export interface Admission {
  readonly reservedGas: bigint;
  readonly limits: readonly SpendLimit[];
}

/** Per-app budgets and policies (design §1.7), checked before a request is stored. */
export interface SpendPolicy {
  /** Counts one spending request of `app` (every process shares the count): 429 RATE_LIMITED past its rate. */
  countRequest(app: App): Promise<void>;
  /** Checks the allowlists and the value bound (403 POLICY_DENIED naming the rule); returns what to reserve. */
  admit(app: App, request: SpendRequest): Admission;
  /**
   * Runs `store` (which must store the request under `admission.limits`), turning a limit it hit into 429
   * BUDGET_EXCEEDED or 403 POLICY_DENIED (userDailyCap).
   */
  commit<T>(request: SpendRequest, admission: Admission, store: () => Promise<T>): Promise<T>;
}

const DAY_SECONDS = 86_400;

/** Builds the spend policy over the database (every limit shared through it, design §6). */
export function createSpendPolicy(deps: SpendPolicyDeps): SpendPolicy {
  /**
   * The end of the window in which this process saw each app over its rate. A window's count only grows, so until
   * it ends every further request is refused here, without a database write: an app far over its rate is shed
   * cheaply instead of adding a write transaction per request.
   */
  const overUntil = new Map<string, number>();
  return {
    async countRequest(app) {
      const { rate } = effectivePolicy(app, deps.defaults);
      const now = deps.clock().getTime();
      const windowMs = rate.perSeconds * 1000;
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const windowEnd = windowStart + windowMs;
      const refuse = () => new AppRateLimitedError(formatRate(rate), secondsUntil(new Date(windowEnd), new Date(now)));
      if ((overUntil.get(app.id) ?? 0) === windowEnd) throw refuse();
      const count = await deps.rateWindows.hit(app.id, new Date(windowStart));
      if (count > rate.requests) {
        overUntil.set(app.id, windowEnd);
        throw refuse();
      }
    },

    admit(app, request) {
      const policy = effectivePolicy(app, deps.defaults);
      if (policy.chains && !policy.chains.includes(request.chain)) {
        throw new PolicyDeniedError("chains", `This app may not send requests on ${request.chain}`, {
          allowed: policy.chains,
        });
      }
      if (request.checkCalls && request.delegatecall && (policy.targets || policy.maxValueWei !== undefined)) {
        // The code run by a delegatecall (a MultiSend, a router, a script) calls and pays anywhere as the account, so
        // neither its target nor its value says where the money goes: with an allowlist or a value bound, refused.
        const rule = policy.targets ? "targets" : "maxValue";
        throw new PolicyDeniedError(
          rule,
          "A delegatecall's inner calls cannot be held to this app's allowlist or value bound",
          {
            index: 0,
          },
        );
      }
      if (request.checkCalls) {
        const targets = policy.targets?.map((t) => t.toLowerCase());
        request.calls.forEach((call, index) => {
          if (targets && !targets.includes(call.to.toLowerCase())) {
            throw new PolicyDeniedError("targets", `Call ${index} targets ${call.to}, not on this app's allowlist`, {
              index,
            });
          }
          if (policy.maxValueWei !== undefined && call.value > policy.maxValueWei) {
            throw new PolicyDeniedError(
              "maxValue",
              `Call ${index} sends ${call.value} wei; this app may send at most ${policy.maxValueWei} per call`,
              { index, maxValueWei: policy.maxValueWei.toString() },
            );
          }
        });
      }
      const limits: SpendLimit[] = [
        { rule: "budget", limitGas: policy.budgetGas, periodSeconds: policy.periodSeconds },
      ];
      if (policy.userDailyCapGas !== undefined && request.userId !== undefined) {
        limits.push({ rule: "userDailyCap", limitGas: policy.userDailyCapGas, periodSeconds: DAY_SECONDS });
      }
      return {
        reservedGas: worstCaseGas(request.calls, request.account, deps.maxCallGas, request.l1DataGas ?? 0n),
        limits,
      };
    },

    async commit(request, admission, store) {
      try {
        return await store();
      } catch (error) {
        if (!(error instanceof SpendLimitExceededError)) throw error;
        const { limit } = error;
        if (limit.rule === "userDailyCap") {
          throw new PolicyDeniedError(
            "userDailyCap",
            `This user id's requests of this app on ${request.chain} have used its daily cap of ${limit.limitGas} gas`,
            { capGas: limit.limitGas.toString(), freesAt: error.freesAt?.toISOString() ?? null },
          );
        }
        throw new BudgetExceededError(
          request.chain,
          { ...limit, usedGas: error.usedGas, requestGas: error.requestGas },
          error.freesAt,
          deps.clock(),
        );
      }
    },
  };
}
