/**
 * Admin CLI: `ts-node scripts/admin.ts [--db <path>] <command>` (see scripts/admin/args.ts for the commands), under the
 * service's settings (scripts/admin/adminSettings.ts).
 * Exit codes: 0 done, 1 not found or failed, 2 usage error.
 */
import { withLocalStackConfig } from "./admin/adminSettings";
import { runAdminCli } from "./admin/cli";

// The entry file is the only place that touches process state (conventions 1); everything else is injected. Beside a
// local stack (no CONFIG_FILE, its settings file in DATA_DIR or data/), the CLI reads the settings it gave its service.
const source = withLocalStackConfig(process.env);
// One line on stderr: which settings the CLI acts under is never a surprise, and stdout stays the command's.
if (source.found !== undefined) process.stderr.write(`Using the local stack's settings from ${source.found}\n`);
runAdminCli(process.argv.slice(2), {
  env: source.env,
  clock: () => new Date(),
  output: {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
