import type { App } from "../auth/app";
import type { TransactionsRepository } from "../transactions/transactionsRepository";
import { type PolicyDefaults, effectivePolicy } from "./effectivePolicy";

/** One app's budget use on one chain over its current period. */
export interface BudgetUsage {
  readonly appId: string;
  readonly chain: string;
  readonly usedGas: bigint;
  readonly budgetGas: bigint;
}

/** What reading budget use needs. */
export interface BudgetUsageDeps {
  readonly listApps: () => Promise<App[]>;
  readonly transactions: Pick<TransactionsRepository, "spendSince">;
  readonly defaults: PolicyDefaults;
  readonly clock: () => Date;
}

/** Every app's budget use per chain, read from the database (so every process of a cluster reports the same). */
export async function readBudgetUsage(deps: BudgetUsageDeps): Promise<BudgetUsage[]> {
  const now = deps.clock().getTime();
  const policies = new Map((await deps.listApps()).map((app) => [app.id, effectivePolicy(app, deps.defaults)]));
  const since = new Map([...policies].map(([id, policy]) => [id, new Date(now - policy.periodSeconds * 1000)]));
  const spend = await deps.transactions.spendSince(since);
  return spend.map((row) => ({
    appId: row.appId,
    chain: row.chain,
    usedGas: row.gas,
    budgetGas: policies.get(row.appId)!.budgetGas,
  }));
}
