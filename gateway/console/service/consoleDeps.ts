import type { AppsRepository } from "../../auth/appsRepository";
import type { SettingsRepository } from "../../config/settingsRepository";
import type { MaintenanceMonitor } from "../../config/maintenanceMonitor";
import type { ChainClient } from "../../chains/clients";
import type { LastSeen } from "../../chains/chainReachability";
import type { Config } from "../../config/schema";
import type { AuditLogRepository } from "../../custody/audit/auditLogRepository";
import type { ProvidersRepository } from "../../identity/providersRepository";
import type { TransactionsRepository } from "../../transactions/transactionsRepository";
import type { WebhooksRepository } from "../../webhooks/webhooksRepository";
import type { ConsoleReads } from "../consoleReads";
import type { ConsoleRepository } from "../consoleRepository";
import type { OperatorDeps } from "./operatorActions";

/** What the console's views read: the service's own repositories, its chain clients and what it knows of them. */
export interface ConsoleViewDeps {
  readonly config: Pick<Config, "chains" | "contracts" | "policy">;
  readonly chains: ReadonlyMap<string, ChainClient>;
  /** Each chain's RPC as the service last saw it (chains/chainReachability.ts). */
  readonly reachability: () => ReadonlyMap<string, LastSeen>;
  /** The relayer's address, if this deployment has one. */
  readonly relayer: string | undefined;
  readonly reads: ConsoleReads;
  readonly transactions: Pick<TransactionsRepository, "find" | "spendSince">;
  readonly apps: Pick<AppsRepository, "list" | "findById">;
  readonly providers: Pick<ProvidersRepository, "list">;
  readonly webhooks: Pick<WebhooksRepository, "queue" | "listEndpoints" | "attempts">;
  readonly auditLog: Pick<AuditLogRepository, "highestSeq" | "head">;
  readonly journal: Pick<ConsoleRepository, "recentActions">;
  readonly maintenance: () => { readonly enabled: boolean; readonly message?: string };
  readonly clock: () => Date;
}

/** Everything the console is built from: its sessions, its views' reads and the operator actions' deps. */
export interface ConsoleDeps {
  readonly sessions: Pick<ConsoleRepository, "createLink" | "useLink" | "openSession" | "findSession" | "closeSession">;
  readonly views: ConsoleViewDeps;
  readonly actions: OperatorDeps;
}

/** The stores the console reads and changes beyond what every route has (AppDeps.console; set when it is served). */
export interface ConsoleStores {
  readonly console: ConsoleRepository;
  readonly reads: ConsoleReads;
  readonly apps: Pick<AppsRepository, "list" | "findById" | "setStatus" | "setPolicy">;
  readonly settings: Pick<SettingsRepository, "setMaintenance">;
  readonly providers: Pick<ProvidersRepository, "list">;
  readonly auditLog: Pick<AuditLogRepository, "highestSeq" | "head">;
}

/** The console's deps from its stores and the service's own parts (its chains, their reachability, maintenance). */
export function consoleDepsOf(
  stores: ConsoleStores,
  parts: Pick<ConsoleViewDeps, "config" | "chains" | "reachability" | "relayer" | "clock"> & {
    readonly transactions: ConsoleViewDeps["transactions"] & OperatorDeps["transactions"];
    readonly webhooks: ConsoleViewDeps["webhooks"] & OperatorDeps["webhooks"];
    readonly maintenance: MaintenanceMonitor;
  },
): ConsoleDeps {
  const { maintenance, ...rest } = parts;
  return {
    sessions: stores.console,
    views: {
      ...rest,
      reads: stores.reads,
      apps: stores.apps,
      providers: stores.providers,
      auditLog: stores.auditLog,
      journal: stores.console,
      maintenance: () => maintenance.current(),
    },
    actions: {
      apps: stores.apps,
      settings: stores.settings,
      webhooks: parts.webhooks,
      transactions: parts.transactions,
      journal: stores.console,
      clock: parts.clock,
      onMaintenance: () => maintenance.refresh(),
    },
  };
}
