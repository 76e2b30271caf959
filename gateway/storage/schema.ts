/**
 * Kysely table interfaces: the shape of each table as SQLite stores it (snake_case columns, ISO-8601 text
 * timestamps, 0/1 integers for booleans). Only `storage/sqlite/` and the migrations use these types; everything
 * else sees the domain types of the repository interfaces.
 */

/** `apps`: one API client (OAuth 2.0 client credentials, design §5); only the secret's scrypt hash is kept. */
export interface AppsTable {
  id: string;
  name: string;
  client_id: string;
  /** `scrypt$N$r$p$saltB64$hashB64`, never the secret itself (design §1.6). */
  secret_hash: string;
  status: "active" | "disabled";
  test_mode: 0 | 1;
  created_at: string;
  updated_at: string;
  secret_rotated_at: string;
}

/** `settings`: service-wide switches (e.g. `maintenance`), each a JSON document under its key. */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

/** `otp_codes`: one phone login code (spec §4.5); only its HMAC is kept (design §1.6). */
export interface OtpCodesTable {
  id: string;
  /** E.164 digits without "+", e.g. `14155552671`. */
  phone: string;
  /** Hex HMAC-SHA256 of the phone and the code, never the code itself. */
  code_hash: string;
  created_at: string;
  expires_at: string;
  /** Wrong codes tried against this one. */
  attempts: number;
  /** 1 once it can no longer be used: verified, superseded by a newer code, or its SMS failed. */
  used: 0 | 1;
}

/** Every table of the database, keyed by table name, for `Kysely<DatabaseSchema>`. */
/** A provider name an app owns, with how its proofs are verified (JSON). */
export interface AppProvidersTable {
  provider: string;
  app_id: string;
  verification: string;
  created_at: string;
}

export interface DatabaseSchema {
  apps: AppsTable;
  settings: SettingsTable;
  otp_codes: OtpCodesTable;
  app_providers: AppProvidersTable;
}
