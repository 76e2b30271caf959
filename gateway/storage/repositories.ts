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
import { SqliteAppsRepository } from "./sql/sqliteAppsRepository";
import { SqliteAuditLogRepository } from "./sql/sqliteAuditLogRepository";
import { GroupCommit } from "./sql/groupCommit";
import { SqliteDustRepository } from "./sql/sqliteDustRepository";
import { SqliteLimitCountersRepository } from "./sql/sqliteLimitCountersRepository";
import { SqliteOtpRepository } from "./sql/sqliteOtpRepository";
import { SqliteProvidersRepository } from "./sql/sqliteProvidersRepository";
import { SqliteRateWindowsRepository } from "./sql/sqliteRateWindowsRepository";
import { SqliteSafesRepository } from "./sql/sqliteSafesRepository";
import { SqliteSettingsRepository } from "./sql/sqliteSettingsRepository";
import { SqliteTransactionsRepository } from "./sql/sqliteTransactionsRepository";
import type { TransactionsRepository } from "../transactions/transactionsRepository";
import { SqliteWorkerLeasesRepository } from "./sql/sqliteWorkerLeasesRepository";
import type { WorkerLeasesRepository } from "../leases/workerLeasesRepository";
import { SqliteWebhooksRepository } from "./sql/sqliteWebhooksRepository";
import type { WebhooksRepository } from "../webhooks/webhooksRepository";

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
