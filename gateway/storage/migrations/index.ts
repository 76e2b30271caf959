import { Migrator, type Kysely, type Migration } from "kysely";
import { MigrationError } from "../errors";
import * as m001 from "./001_apps_and_settings";
import * as m002 from "./002_otp_codes";
import * as m003 from "./003_app_providers";
import * as m004 from "./004_transactions";
import * as m005 from "./005_safes";
import * as m006 from "./006_dust";
import * as m007 from "./007_app_delegatecall_grant";
import * as m008 from "./008_app_budgets";
import * as m009 from "./009_spent_gas";
import * as m010 from "./010_spend_buckets";
import * as m011 from "./011_provider_disabled";
import * as m012 from "./012_otp_backoff";
import * as m013 from "./013_app_secret_rotation";
import * as m014 from "./014_signature_audit";
import * as m015 from "./015_worker_leases";
import * as m016 from "./016_limit_counters";
import * as m017 from "./017_dialect_neutral_order";
import * as m018 from "./018_webhooks";
import * as m019 from "./019_wallet_queue_index";
import * as m020 from "./020_audit_mark_tag";
import * as m021 from "./021_app_safe_config_grant";
import * as m022 from "./022_request_listing_indexes";
import * as m023 from "./023_audit_covers";
import * as m024 from "./024_console";

/**
 * Every migration, in order. A static list rather than a folder scan so it works unchanged after compilation
 * (no .ts/.js guessing) and a missing file is a compile error. Append only: a released migration never changes.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  "001_apps_and_settings": m001,
  "002_otp_codes": m002,
  "003_app_providers": m003,
  "004_transactions": m004,
  "005_safes": m005,
  "006_dust": m006,
  "007_app_delegatecall_grant": m007,
  "008_app_budgets": m008,
  "009_spent_gas": m009,
  "010_spend_buckets": m010,
  "011_provider_disabled": m011,
  "012_otp_backoff": m012,
  "013_app_secret_rotation": m013,
  "014_signature_audit": m014,
  "015_worker_leases": m015,
  "016_limit_counters": m016,
  "017_dialect_neutral_order": m017,
  "018_webhooks": m018,
  "019_wallet_queue_index": m019,
  "020_audit_mark_tag": m020,
  "021_app_safe_config_grant": m021,
  "022_request_listing_indexes": m022,
  "023_audit_covers": m023,
  "024_console": m024,
};

/** Applies every pending migration, or throws MigrationError naming the one that failed. */
export async function runMigrations<DB>(
  db: Kysely<DB>,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((result) => result.status === "Error");
  throw new MigrationError(failed?.migrationName, error);
}
