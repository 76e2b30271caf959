import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { Address } from "../../gateway/chains/evmSchemas";
import { ConfigError, configInputOf, envNameOf } from "../../gateway/config/load";
import { ConfigSchema } from "../../gateway/config/schema";
import { LOCAL_STACK_CONFIG_FILE } from "../localStack/localStackConfig";

const service = ConfigSchema.shape;

/**
 * The settings the admin CLI shares with the service, each validated by the service's own schema: where the database
 * is, the secrets key that seals what both store, the audit log's key, the webhook rules, the chains' RPC URLs and the
 * owner account. Nothing else is required: an operator's shell need not hold the service's signing keys.
 */
const AdminSettingsSchema = z
  .object({
    dataDir: service.dataDir,
    databasePath: service.databasePath,
    databaseUrl: service.databaseUrl,
    secrets: service.secrets,
    auditLogKey: service.auditLogKey,
    webhooks: service.webhooks,
    chains: service.chains,
    contracts: z.object({ ownerAccount: Address.optional(), entryPoint: Address.optional() }).prefault({}),
  })
  // The service's rule (config/schema.ts), with the CLI's way out.
  .refine((s) => s.databaseUrl === undefined || s.databasePath === undefined, {
    message: "DATABASE_PATH (SQLite) is set too: unset one, or use --db",
    path: ["databaseUrl"],
  });

/** The service's settings as the admin CLI uses them (AdminSettingsSchema), with the database it opens. */
export type AdminSettings = z.infer<typeof AdminSettingsSchema> & {
  /** What the service opens: DATABASE_URL, else DATABASE_PATH, else `<DATA_DIR>/idwallet.sqlite` (as loadConfig). */
  readonly database: string;
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Settings that say the CLI is pointed at a deployment of its own: with any of them set, a local stack's file left in
 * the data directory is never read underneath (it would lend its dev secrets key and loopback webhook rules).
 */
const OWN_DEPLOYMENT_SETTINGS = ["CONFIG_FILE", "DATABASE_URL", "DATABASE_PATH", "SECRETS_KEY"] as const;

/**
 * The environment with CONFIG_FILE pointing at the local stack's settings (scripts/localStack/localStackConfig.ts)
 * when no setting names a deployment of its own and `<DATA_DIR or data>/local-stack.config.json` exists, and the file
 * found, if any.
 */
export function withLocalStackConfig(env: Env): { env: Env; found?: string } {
  if (OWN_DEPLOYMENT_SETTINGS.some((name) => env[name])) return { env };
  const file = path.join(env.DATA_DIR || "data", LOCAL_STACK_CONFIG_FILE);
  return existsSync(file) ? { env: { ...env, CONFIG_FILE: file }, found: file } : { env };
}

/**
 * Reads the admin CLI's settings exactly as the service reads its own (configInputOf: CONFIG_FILE overlaid with the
 * environment). Throws ConfigError naming each bad setting by its variable, a line each, as the service's start-up
 * does.
 */
export function loadAdminSettings(env: Env): AdminSettings {
  const parsed = AdminSettingsSchema.safeParse(configInputOf(env));
  if (!parsed.success) {
    // One line a bad setting, named by its variable: `SECRETS_KEY: 32 random bytes: …`.
    throw new ConfigError(parsed.error.issues.map((issue) => `${envNameOf(issue.path)}: ${issue.message}`).join("\n"));
  }
  const settings = parsed.data;
  const database = settings.databaseUrl ?? settings.databasePath ?? path.join(settings.dataDir, "idwallet.sqlite");
  return { ...settings, database };
}
