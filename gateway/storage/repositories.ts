import type { Kysely } from "kysely";
import type { SecretsKeyring } from "../crypto/secretsKeyring";
import type { AppsRepository } from "./appsRepository";
import type { AuditLogRepository } from "./auditLogRepository";
import type { DustRepository } from "./dustRepository";
import type { LimitCountersRepository } from "./limitCountersRepository";
import type { OtpRepository } from "./otpRepository";
import type { ProvidersRepository } from "./providersRepository";
import type { RateWindowsRepository } from "./rateWindowsRepository";
import type { SafesRepository } from "./safesRepository";
import type { DatabaseSchema } from "./schema";
import type { SettingsRepository } from "./settingsRepository";
import { SqliteAppsRepository } from "./sqlite/sqliteAppsRepository";
import { SqliteAuditLogRepository } from "./sqlite/sqliteAuditLogRepository";
import { GroupCommit } from "./sqlite/groupCommit";
import { SqliteDustRepository } from "./sqlite/sqliteDustRepository";
import { SqliteLimitCountersRepository } from "./sqlite/sqliteLimitCountersRepository";
import { SqliteOtpRepository } from "./sqlite/sqliteOtpRepository";
import { SqliteProvidersRepository } from "./sqlite/sqliteProvidersRepository";
import { SqliteRateWindowsRepository } from "./sqlite/sqliteRateWindowsRepository";
import { SqliteSafesRepository } from "./sqlite/sqliteSafesRepository";
import { SqliteSettingsRepository } from "./sqlite/sqliteSettingsRepository";
import { SqliteTransactionsRepository } from "./sqlite/sqliteTransactionsRepository";
import type { TransactionsRepository } from "./transactionsRepository";
import { SqliteWorkerLeasesRepository } from "./sqlite/sqliteWorkerLeasesRepository";
import type { WorkerLeasesRepository } from "./workerLeasesRepository";
import { SqliteWebhooksRepository } from "./sqlite/sqliteWebhooksRepository";
import type { WebhooksRepository } from "./webhooksRepository";

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
  return {
    apps: new SqliteAppsRepository(db, clock),
    settings: new SqliteSettingsRepository(db, clock),
    otp: new SqliteOtpRepository(db),
    providers: new SqliteProvidersRepository(db, clock, options.secrets),
    transactions: new SqliteTransactionsRepository(db, clock, commits),
    safes: new SqliteSafesRepository(db, clock, commits),
    dust: new SqliteDustRepository(db, clock),
    rateWindows: new SqliteRateWindowsRepository(db),
    limitCounters: new SqliteLimitCountersRepository(db),
    auditLog: new SqliteAuditLogRepository(db),
    workerLeases: new SqliteWorkerLeasesRepository(db, clock),
    webhooks: new SqliteWebhooksRepository(db, clock, options.secrets),
  };
}
