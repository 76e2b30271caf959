import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { Address } from "../../gateway/chains/evmSchemas";
import { readEnvFile } from "../../gateway/config/envFile";
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
    // `console open` prints a link to the service: where it is reached, and how long a link lasts.
    console: service.console,
    publicUrl: service.publicUrl,
    host: service.host,
    port: service.port,
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
 * Settings that say which deployment the CLI administers, each with where the local stack's file holds it. Set to
 * anything but what the file holds, the CLI is pointed at a deployment of its own: a local stack's file left in the
 * data directory is never read underneath (it would lend its dev secrets key and loopback webhook rules). Set to what
 * it holds (a local stack started under the same `.env` wrote them there), the file is that deployment's.
 */
const DEPLOYMENT_SETTINGS: ReadonlyArray<readonly [string, (file: StackFile) => unknown, (value: string) => string]> = [
  ["DATABASE_URL", (file) => file.databaseUrl, (value) => value],
  // Written absolute (localStackConfig.ts): compared as a path from here.
  ["DATABASE_PATH", (file) => file.databasePath, (value) => path.resolve(value)],
  ["SECRETS_KEY", (file) => file.secrets?.key, (value) => value],
];

/** What DEPLOYMENT_SETTINGS read of a local stack's file. */
interface StackFile {
  readonly databaseUrl?: unknown;
  readonly databasePath?: unknown;
  readonly secrets?: { readonly key?: unknown };
}

/** Whether every deployment setting set in `env` is the one the local stack's `file` holds (unreadable: no). */
function sameDeployment(env: Env, file: string): boolean {
  const named = DEPLOYMENT_SETTINGS.filter(([name]) => env[name]);
  if (named.length === 0) return true;
  let settings: StackFile;
  try {
    settings = JSON.parse(readFileSync(file, "utf8")) as StackFile;
  } catch {
    return false;
  }
  return named.every(([name, held, normal]) => held(settings) === normal(env[name]!));
}

/**
 * The environment with CONFIG_FILE pointing at the local stack's settings (scripts/localStack/localStackConfig.ts)
 * when CONFIG_FILE is not set, `<DATA_DIR or data>/local-stack.config.json` exists and no deployment setting names
 * another deployment (DEPLOYMENT_SETTINGS), and the file found, if any.
 */
export function withLocalStackConfig(env: Env): { env: Env; found?: string } {
  if (env.CONFIG_FILE) return { env };
  const file = path.join(env.DATA_DIR || "data", LOCAL_STACK_CONFIG_FILE);
  return existsSync(file) && sameDeployment(env, file) ? { env: { ...env, CONFIG_FILE: file }, found: file } : { env };
}

/**
 * The environment the CLI acts under, read as the service reads its own: ENV_FILE's file or the working directory's
 * `.env` under the variables set (gateway/config/envFile.ts, as `npm run serve` reads it; the CLI is never a cluster
 * worker), then the local stack's file as withLocalStackConfig finds it. `envFile`: the settings the file set.
 * Throws ConfigError when ENV_FILE names a file that cannot be read.
 */
export function adminEnvironment(env: Env): { env: Env; found?: string; envFile: string[] } {
  const read: NodeJS.ProcessEnv = { ...env };
  const envFile = readEnvFile(read, true);
  return { ...withLocalStackConfig(read), envFile };
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
