import type { Kysely } from "kysely";
import type { SecretsKeyring } from "../crypto/secretsKeyring";
import type { AppsRepository } from "../auth/appsRepository";
import type { AuditLogRepository } from "../custody/audit/auditLogRepository";
import type { DustRepository } from "../dust/dustRepository";
import type { LimitCountersRepository } from "../limits/limitCountersRepository";
import type { OtpRepository } from "../auth/otp/otpRepository";
import type { ProvidersRepository } from "../identity/providersRepository";
import type { RateWindowsRepository } from "../policy/rateWindowsRepository";
import type { SafesRepository } from "../safe/model/safesRepository";
import type { DatabaseSchema } from "./schema";
import type { SettingsRepository } from "../config/settingsRepository";
import { SqlAppsRepository } from "./sql/sqlAppsRepository";
import { SqlAuditLogRepository } from "./sql/sqlAuditLogRepository";
import { GroupCommit } from "./sql/groupCommit";
import { SqlDustRepository } from "./sql/sqlDustRepository";
import { SqlLimitCountersRepository } from "./sql/sqlLimitCountersRepository";
import { SqlOtpRepository } from "./sql/sqlOtpRepository";
import { SqlProvidersRepository } from "./sql/sqlProvidersRepository";
import { SqlRateWindowsRepository } from "./sql/sqlRateWindowsRepository";
import { SqlSafesRepository } from "./sql/sqlSafesRepository";
import { SqlSettingsRepository } from "./sql/sqlSettingsRepository";
import { SqlTransactionsRepository } from "./sql/sqlTransactionsRepository";
import type { TransactionsRepository } from "../transactions/transactionsRepository";
import { SqlWorkerLeasesRepository } from "./sql/sqlWorkerLeasesRepository";
import type { WorkerLeasesRepository } from "../leases/workerLeasesRepository";
import { SqlWebhooksRepository } from "./sql/sqlWebhooksRepository";
import type { WebhooksRepository } from "../webhooks/webhooksRepository";
import { recordRequestEvent } from "../webhooks/requestEvents";
import { OutboxSignal } from "./sql/outboxSignal";
import type { ConsoleRepository } from "../console/consoleRepository";
import type { ConsoleReads } from "../console/consoleReads";
import { SqlConsoleRepository } from "./sql/sqlConsoleRepository";
import { SqlConsoleReads } from "./sql/sqlConsoleReads";

/** Every repository the service uses, behind its interface so another dialect can slot in (design §6). */
export interface Repositories {
  readonly apps: AppsRepository;
  readonly settings: SettingsRepository;
  readonly otp: OtpRepository;
  readonly providers: ProvidersRepository;
  readonly transactions: TransactionsRepository;
  readonly safes: SafesRepository;
  readonly dust: DustRepository;
  readonly rateWindows: RateWindowsRepository;
  readonly limitCounters: LimitCountersRepository;
  readonly auditLog: AuditLogRepository;
  readonly workerLeases: WorkerLeasesRepository;
  readonly webhooks: WebhooksRepository;
  /** The operator console's links, sessions and action log, and its reads (issue 38). */
  readonly console: ConsoleRepository;
  readonly consoleReads: ConsoleReads;
}

/**
 * Builds the repositories over one database; `clock` is the only source of time they use, `secrets` seals the secrets
 * they store (HS256 provider secrets, webhook signing secrets; without it those are refused).
 */
export function createRepositories(
  db: Kysely<DatabaseSchema>,
  clock: () => Date,
  options: { secrets?: SecretsKeyring } = {},
): Repositories {
  // Wallet requests and Safe creations are accepted through one group commit.
  const commits = new GroupCommit(db);
  // Each change of a request's state records its webhook event in the same transaction, as the webhooks' rules decide;
  // this process's delivery loop hears of each event once committed.
  const outboxSignal = new OutboxSignal();
  const changeEvents = { record: recordRequestEvent, signal: outboxSignal };
  return {
    apps: new SqlAppsRepository(db, clock),
    settings: new SqlSettingsRepository(db, clock),
    otp: new SqlOtpRepository(db),
    providers: new SqlProvidersRepository(db, clock, options.secrets),
    transactions: new SqlTransactionsRepository(db, clock, commits, changeEvents),
    safes: new SqlSafesRepository(db, clock, commits),
    dust: new SqlDustRepository(db, clock),
    rateWindows: new SqlRateWindowsRepository(db),
    limitCounters: new SqlLimitCountersRepository(db),
    auditLog: new SqlAuditLogRepository(db),
    workerLeases: new SqlWorkerLeasesRepository(db, clock),
    webhooks: new SqlWebhooksRepository(db, clock, options.secrets, outboxSignal),
    console: new SqlConsoleRepository(db, clock),
    consoleReads: new SqlConsoleReads(db),
  };
}

/** What the operator console reads and changes of the repositories (AppDeps.console, issue 38). */
export const consoleStoresOf = (repositories: Repositories) => ({
  console: repositories.console,
  reads: repositories.consoleReads,
  apps: repositories.apps,
  settings: repositories.settings,
  providers: repositories.providers,
  auditLog: repositories.auditLog,
});
