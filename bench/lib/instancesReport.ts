/** The several-instances bench's section of bench/results.md, with issue 37's PostgreSQL targets met or not. */
import { machineLine } from "./benchOptions";
import { coresUsed, cpuBound } from "./cpuBound";
import type { StatementCount } from "./postgresStatements";
import type { CpuSpent } from "./processCpu";
import { type UserOpsRun, percentile } from "./userOpsLoad";

/** Issue 37: one PostgreSQL instance accepts at least this share of what one SQLite instance does, same run. */
const TARGET_POSTGRES_SHARE = 0.8;

/** A scenario: its database and how many instances share it. */
export interface InstancesScenario {
  readonly label: string;
  readonly database: "sqlite" | "postgres";
  readonly instances: number;
}

/** One measured run: the load's figures, where the CPU went, and the database's statements (PostgreSQL). */
export interface Measured {
  readonly run: UserOpsRun;
  readonly cpu: CpuSpent;
  readonly statements?: StatementCount;
}

/** How the runs were made, for the report's prose. */
export interface InstancesSettings {
  readonly rate: number;
  readonly concurrency: number;
  readonly requests: number;
  readonly users: number;
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const verdict = (met: boolean) => (met ? "PASS" : "**FAIL**");

/** The run with the median acceptance rate (the lower middle of an even count). */
function medianRun(runs: readonly Measured[]): Measured {
  const sorted = [...runs].sort((a, b) => a.run.acceptedPerSecond - b.run.acceptedPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** CPU ms per request of each process the scenario ran: its instances together, the database, the bench. */
function cpuPerRequest(m: Measured): string {
  const perRequest = (names: string[]) =>
    names.reduce((sum, name) => sum + (m.cpu.ms[name] ?? 0), 0) / m.run.ops.length;
  const instances = Object.keys(m.cpu.ms).filter((name) => name.startsWith("instance"));
  const database = m.cpu.ms.database === undefined ? "–" : `${perRequest(["database"]).toFixed(2)} ms`;
  return `${perRequest(instances).toFixed(2)} ms | ${database} | ${perRequest(["bench"]).toFixed(2)} ms`;
}

/** Statements, server time and acceptance-lock wait per request, when the database counted them. */
function databaseCost(m: Measured): string {
  const s = m.statements;
  if (!s) return "– | – | –";
  const n = m.run.ops.length;
  return `${(s.statements / n).toFixed(1)} | ${(s.executionMs / n).toFixed(2)} ms | ${(s.lockWaitMs / n).toFixed(2)} ms`;
}

/**
 * What bounds a run (the load is offered above what any scenario accepts): an instance's or Hardhat's event loop, the
 * machine, or else, on PostgreSQL, the round trips of one group commit at a time; on SQLite, the instance and Hardhat's
 * chain together.
 */
function bound(m: Measured, database: InstancesScenario["database"]): string {
  const loops = [...Object.keys(m.cpu.ms).filter((name) => name.startsWith("instance")), "bench"];
  const otherwise =
    database === "postgres"
      ? "the database's round trips: one group commit at a time an instance, its statements in turn, each answer " +
        "waiting on the instance's busy event loop"
      : "the instance's event loop and Hardhat's chain (in the bench) together, neither alone full";
  return cpuBound(m.cpu, loops, otherwise);
}

/** The targets: PostgreSQL's acceptance against SQLite's, two instances against one. */
function targetRows(scenarios: readonly (InstancesScenario & { runs: readonly Measured[] })[]): string[] {
  const accepted = (database: string, instances: number) => {
    const s = scenarios.find((x) => x.database === database && x.instances === instances);
    return s && median(s.runs.map((m) => m.run.acceptedPerSecond));
  };
  const [sqlite, one, two] = [accepted("sqlite", 1), accepted("postgres", 1), accepted("postgres", 2)];
  if (sqlite === undefined || one === undefined || two === undefined) return [];
  return [
    "",
    "| Target | Measured | Met |",
    "| --- | --: | --- |",
    `| PostgreSQL, one instance: accepted/s ≥ ${TARGET_POSTGRES_SHARE}× SQLite's | ${int(one)} / ${int(sqlite)} = ` +
      `${(one / sqlite).toFixed(2)}× | ${verdict(one >= TARGET_POSTGRES_SHARE * sqlite)} |`,
    `| PostgreSQL: two instances accept ≥ one | ${int(two)} / ${int(one)} = ${(two / one).toFixed(2)}× | ` +
      `${verdict(two >= one)} |`,
  ];
}

/** The section: settings, one row per scenario (medians, each run, the median run's CPU and cost), the targets. */
export function instancesReport(
  settings: InstancesSettings,
  scenarios: readonly (InstancesScenario & { runs: readonly Measured[] })[],
): string {
  return [
    "## Several instances: acceptance and UserOperations per second",
    "",
    machineLine(),
    "",
    `Fresh in-process Hardhat chain (automine), built-in bundler, default settings; each service a child process ` +
      `(one process each, raw keys). POST /v1/kernel/tx offered at ${int(settings.rate)} requests/s with at most ` +
      `${settings.concurrency} in flight, alternating between the instances; ${int(settings.requests)} requests per ` +
      `run, each one call of TestTarget.record from an already deployed wallet of ${settings.users}, all of one app. ` +
      "Every request ended included with success, carried once by the chain's bundles. Accepted/s = requests / " +
      "(last 202 − first submission); ops/s = requests / (last inclusion − first submission). Everything (chain, " +
      "load, database, instances) shares the machine's cores. CPU per request (the median run, from /proc): the " +
      "instances together, the PostgreSQL server (its backends), and this process (the load and Hardhat's chain). " +
      "Statements per request: all the database ran over the run (acceptance, the worker's building and settling, " +
      "polls), from pg_stat_statements; each is one round trip from the service. Lock wait: the server's time in " +
      "`pg_advisory_xact_lock`, which one app's acceptances take in turn (across instances too).",
    "",
    "| Scenario | Runs | Accepted/s (median) | Ops/s (median) | POST p99 (median) | Accepted/s, each run | Ops/s, each run | " +
      "Instances CPU/request | Database CPU/request | Bench CPU/request | Statements/request | Server time/request | " +
      "Lock wait/request | Bound by |",
    "| --- | --: | --: | --: | --: | --- | --- | --: | --: | --: | --: | --: | --: | --- |",
    ...scenarios.map(({ label, runs, database }) => {
      const m = medianRun(runs);
      return (
        `| ${label} | ${runs.length} | ${int(median(runs.map((r) => r.run.acceptedPerSecond)))} | ` +
        `${int(median(runs.map((r) => r.run.opsPerSecond)))} | ${int(median(runs.map((r) => r.run.acceptP99Ms)))} ms | ` +
        `${runs.map((r) => int(r.run.acceptedPerSecond)).join(", ")} | ` +
        `${runs.map((r) => int(r.run.opsPerSecond)).join(", ")} | ${cpuPerRequest(m)} | ${databaseCost(m)} | ` +
        `${bound(m, database)} |`
      );
    }),
    ...targetRows(scenarios),
  ].join("\n");
}

/** Cores each process kept busy in a run, for the log. */
export const coresLine = (m: Measured): string =>
  Object.entries(coresUsed(m.cpu))
    .map(([name, cores]) => `${name} ${cores.toFixed(2)}`)
    .join(", ");
