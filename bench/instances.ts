/**
 * Several instances: the API's acceptance rate and UserOperations per second with one service instance on SQLite,
 * one on PostgreSQL, and two on one PostgreSQL database (requests alternating between them, as a load balancer
 * sends them; the chain's worker runs in whichever holds its lease). One fresh in-process Hardhat chain (automine)
 * for every scenario, its wallets deployed first; each scenario a fresh database; each service a child process.
 *
 *   npx hardhat run --no-compile bench/instances.ts
 *
 * Settings (environment, defaults shown):
 *   INSTANCES_REQUESTS=1000   requests measured per scenario
 *   INSTANCES_RATE=2000       offered requests/s: above what one instance accepts, so the API sets the pace
 *   INSTANCES_CONCURRENCY=64  most POSTs in flight
 *   INSTANCES_ROUNDS=1        the three scenarios, this many times in turn (the report gives each run and the median)
 *
 * PostgreSQL is a throwaway server of the Debian `postgresql` package (as in the tests), with pg_stat_statements
 * loaded so the report can say what a request costs the database. Each row says what bounds it, from the CPU of the
 * service(s), the database server and this process (the load and Hardhat's chain). Exits non-zero if any request is
 * refused, fails, or is not carried by the chain's bundles exactly once.
 */
import { type InstancesScenario, type Measured, coresLine, instancesReport } from "./lib/instancesReport";
import { STATEMENT_STATS_SETTINGS, StatementCounter } from "./lib/postgresStatements";
import { cpuSpent, snapshotCpu } from "./lib/processCpu";
import { chainBundles } from "./lib/userOpsChain";
import { type UserOpRequest, UserOpsFailure, runUserOps } from "./lib/userOpsLoad";
import {
  type BenchDatabase,
  type UserOpsChain,
  type UserOpsService,
  prepareBenchDatabase,
  startUserOpsChain,
  startUserOpsService,
} from "./lib/userOpsStack";
import { Requests, makeUsers } from "./lib/userOpsUsers";
import { type PostgresServer, startPostgresServer } from "../test/helpers/postgresServer";

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

const REQUESTS = envInt("INSTANCES_REQUESTS", 1_000);
const RATE = envInt("INSTANCES_RATE", 2_000);
const CONCURRENCY = envInt("INSTANCES_CONCURRENCY", 64);
const ROUNDS = envInt("INSTANCES_ROUNDS", 1);
const USERS = 256;
/** Wallets deployed per warm-up wave: a bundle of deployments stays under the 2^24 transaction gas cap. */
const WARMUP_WAVE = 32;

const SCENARIOS: readonly InstancesScenario[] = [
  { label: "SQLite, 1 instance", database: "sqlite", instances: 1 },
  { label: "PostgreSQL, 1 instance", database: "postgres", instances: 1 },
  { label: "PostgreSQL, 2 instances", database: "postgres", instances: 2 },
];

/** A scenario's services, the database server they use, and its statement counter (PostgreSQL). */
interface Running {
  readonly services: readonly UserOpsService[];
  readonly databasePid?: number;
  readonly statements?: StatementCounter;
}

/** Runs `requests` over the scenario's services and checks the chain's new bundles carry exactly them. */
async function measure(chain: UserOpsChain, running: Running, requests: readonly UserOpRequest[]): Promise<Measured> {
  const { services } = running;
  const provider = chain.node.provider;
  const fromBlock = (await provider.getBlockNumber()) + 1;
  const roots: Record<string, number> = { bench: process.pid };
  services.forEach((service, i) => (roots[`instance ${i + 1}`] = service.pid));
  if (running.databasePid !== undefined) roots.database = running.databasePid;
  await running.statements?.reset();
  const before = snapshotCpu(roots);
  const run = await runUserOps(
    services.map((service) => service.url),
    services[0]!.appToken,
    requests,
    { ratePerSecond: RATE, concurrency: CONCURRENCY, pollers: 8, timeoutMs: 180_000 },
  );
  const cpu = cpuSpent(before, snapshotCpu(roots));
  const statements = await running.statements?.read();
  const onChain = await chainBundles(
    provider,
    { fromBlock, toBlock: await provider.getBlockNumber() },
    chain.relayer,
    chain.deployment.contracts.entryPoint,
  );
  if (onChain.ops !== requests.length) {
    throw new UserOpsFailure(`${requests.length} requests included, but the chain holds ${onChain.ops} operations`);
  }
  return { run, cpu, ...(statements ? { statements } : {}) };
}

/** The services of a scenario on a fresh database (their app tokens are the same app's). */
async function startScenario(
  chain: UserOpsChain,
  scenario: InstancesScenario,
  postgres: PostgresServer,
  round: number,
): Promise<Running> {
  let database: BenchDatabase | undefined;
  let statements: StatementCounter | undefined;
  if (scenario.database === "postgres") {
    const url = await postgres.createDatabase(`bench_${round}_${scenario.instances}`);
    database = await prepareBenchDatabase(url);
    statements = await StatementCounter.open(url);
  }
  const services: UserOpsService[] = [];
  for (let i = 0; i < scenario.instances; i++) {
    services.push(await startUserOpsService(chain, { INSTANCE_ID: `bench-${i}` }, database ? { database } : {}));
  }
  return statements ? { services, databasePid: postgres.pid, statements } : { services };
}

/** Stops a scenario's services and its statement counter. */
async function stopScenario(running: Running): Promise<void> {
  await Promise.all(running.services.map((service) => service.stop()));
  await running.statements?.close();
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

async function main(): Promise<void> {
  const users = await makeUsers(USERS);
  const chain = await startUserOpsChain();
  const postgres = await startPostgresServer(STATEMENT_STATS_SETTINGS);
  const runs = new Map<string, Measured[]>(SCENARIOS.map((s) => [s.label, []]));
  let running: Running | undefined;
  try {
    const requests = new Requests(chain.target);
    running = await startScenario(chain, SCENARIOS[0]!, postgres, 0);
    for (let first = 0; first < USERS; first += WARMUP_WAVE) {
      const wave = users.slice(first, first + WARMUP_WAVE);
      await measure(chain, running, requests.next(wave, wave.length));
    }
    await stopScenario(running);
    running = undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        running = await startScenario(chain, scenario, postgres, round);
        // A few requests first (JIT, connections, the worker's lease), not measured.
        await measure(chain, running, requests.next(users, 20));
        const measured = await measure(chain, running, requests.next(users, REQUESTS));
        runs.get(scenario.label)!.push(measured);
        const { run } = measured;
        console.error(
          `${scenario.label}, run ${round}: ${int(run.acceptedPerSecond)} accepted/s, ${int(run.opsPerSecond)} ops/s ` +
            `(cores: ${coresLine(measured)})`,
        );
        await stopScenario(running);
        running = undefined;
      }
    }
  } finally {
    if (running) await stopScenario(running);
    postgres.stop();
    await chain.close();
  }
  console.log(
    instancesReport(
      { rate: RATE, concurrency: CONCURRENCY, requests: REQUESTS, users: USERS },
      SCENARIOS.map((scenario) => ({ ...scenario, runs: runs.get(scenario.label)! })),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
