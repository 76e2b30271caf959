import { ConfigError } from "../../gateway/config/load";
import { createSecretsKeyring } from "../../gateway/crypto/secretsKeyring";
import { openDatabase, type Database } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
import { type AdminSettings, loadAdminSettings } from "./adminSettings";
import { parseAdminArgs, USAGE } from "./args";
import { EXIT, runAdminCommand, type AdminOutput } from "./commands";
import { runDbCommand } from "./dbCommands";

/** What the CLI needs from its surroundings, injected so tests run it whole without spawning a process. */
export interface AdminCliDeps {
  readonly env: NodeJS.ProcessEnv;
  readonly output: AdminOutput;
  readonly clock: () => Date;
  readonly openDatabase?: (path: string) => Promise<Database>;
}

/**
 * Reads the service's settings from `deps.env` as the service does (scripts/admin/adminSettings.ts), parses argv, opens
 * (and migrates) the database, runs the command, and returns the exit code.
 */
export async function runAdminCli(argv: readonly string[], deps: AdminCliDeps): Promise<number> {
  let settings: AdminSettings;
  try {
    settings = loadAdminSettings(deps.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    deps.output.err(`Error: ${error.message}`);
    return EXIT.usage;
  }
  const parsed = parseAdminArgs(argv, settings);
  if (!parsed.ok) {
    deps.output.err(`Error: ${parsed.error}\n\n${USAGE}`);
    return EXIT.usage;
  }
  // Help needs no database, and must not create one as a side effect.
  if (parsed.command.kind === "help") {
    deps.output.out(USAGE);
    return EXIT.ok;
  }
  const open = deps.openDatabase ?? openDatabase;
  if (parsed.command.kind === "db") {
    return (await runDbCommand(parsed.command.command, parsed.dbPath, open, deps.output)) ? EXIT.ok : EXIT.failed;
  }
  // The service's SECRETS_KEY (and SECRETS_KEY_PREVIOUS), so that what the CLI seals the service opens.
  const secrets = createSecretsKeyring(settings.secrets);
  const database = await open(parsed.dbPath);
  try {
    const repositories = createRepositories(database.db, deps.clock, { secrets });
    return await runAdminCommand(parsed.command, repositories, deps.output, deps.clock, { settings, env: deps.env });
  } finally {
    await database.close();
  }
}
