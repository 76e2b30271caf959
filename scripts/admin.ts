/**
 * Admin CLI: `ts-node scripts/admin.ts [--db <path>] <command>` (see scripts/admin/args.ts for the commands), under the
 * service's settings (scripts/admin/adminSettings.ts).
 * Exit codes: 0 done, 1 not found or failed, 2 usage error.
 */
import { ConfigError } from "../gateway/config/load";
import { adminEnvironment } from "./admin/adminSettings";
import { runAdminCli } from "./admin/cli";

/** Reads the settings as the service does (`.env`, then beside a local stack its settings file) and runs the command. */
async function main(): Promise<number> {
  // The entry file is the only place that touches process state (conventions 1); everything else is injected.
  let source: ReturnType<typeof adminEnvironment>;
  try {
    source = adminEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Error: ${error.message}\n`);
    return 2;
  }
  // One line on stderr each: which settings the CLI acts under is never a surprise, and stdout stays the command's.
  if (source.envFile.length > 0) {
    const file = process.env.ENV_FILE ?? ".env";
    process.stderr.write(`Using the settings in ${file} (a variable set in the environment wins)\n`);
  }
  if (source.found !== undefined) process.stderr.write(`Using the local stack's settings from ${source.found}\n`);
  return runAdminCli(process.argv.slice(2), {
    env: source.env,
    clock: () => new Date(),
    output: {
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
    },
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
