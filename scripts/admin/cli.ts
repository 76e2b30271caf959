import { SecretsSettings } from "../../gateway/config/settingTypes";
import { createSecretsKeyring } from "../../gateway/crypto/secretsKeyring";
import { openDatabase, type Database } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";
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

/** Parses argv, opens (and migrates) the database, runs the command, and returns the exit code. */
export async function runAdminCli(argv: readonly string[], deps: AdminCliDeps): Promise<number> {
  const parsed = parseAdminArgs(argv, deps.env);
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
  const secretsSettings = SecretsSettings.safeParse({
    key: deps.env.SECRETS_KEY || undefined,
    previousKey: deps.env.SECRETS_KEY_PREVIOUS || undefined,
  });
  if (!secretsSettings.success) {
    const issue = secretsSettings.error.issues[0]!;
    deps.output.err(
      `Error: ${issue.path[0] === "previousKey" ? "SECRETS_KEY_PREVIOUS" : "SECRETS_KEY"}: ${issue.message}`,
    );
    return EXIT.usage;
  }
  const secrets = createSecretsKeyring(secretsSettings.data);
  const database = await open(parsed.dbPath);
  try {
    const repositories = createRepositories(database.db, deps.clock, { secrets });
    return await runAdminCommand(parsed.command, repositories, deps.output, deps.clock, deps.env);
  } finally {
    await database.close();
  }
}
