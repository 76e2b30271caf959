/**
 * Admin CLI: `ts-node scripts/admin.ts [--db <path>] <command>` (see scripts/admin/args.ts for the commands).
 * Exit codes: 0 done, 1 not found or failed, 2 usage error.
 */
import { runAdminCli } from "./admin/cli";

// The entry file is the only place that touches process state (conventions 1); everything else is injected.
runAdminCli(process.argv.slice(2), {
  env: process.env,
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
