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
 * PostgreSQL is a throwaway server of the Debian `postgresql` package (as in the tests). Exits non-zero if any
 * request is refused, fails, or is not carried by the chain's bundles exactly once.
 */
import { machineLine } from "./lib/benchOptions";
import { chainBundles } from "./lib/userOpsChain";
import { type UserOpRequest, type UserOpsRun, UserOpsFailure, percentile, runUserOps } from "./lib/userOpsLoad";
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

interface Scenario {
  readonly label: string;
  readonly database: "sqlite" | "postgres";
  readonly instances: number;
}

const SCENARIOS: readonly Scenario[] = [
  { label: "SQLite, 1 instance", database: "sqlite", instances: 1 },
  { label: "PostgreSQL, 1 instance", database: "postgres", instances: 1 },
  { label: "PostgreSQL, 2 instances", database: "postgres", instances: 2 },
];

/** Runs `requests` over `services` and checks the chain's new bundles carry exactly them. */
async function measure(chain: UserOpsChain, services: readonly UserOpsService[], requests: readonly UserOpRequest[]) {
  const provider = chain.node.provider;
  const fromBlock = (await provider.getBlockNumber()) + 1;
  const run = await runUserOps(
    services.map((service) => service.url),
    services[0]!.appToken,
    requests,
    { ratePerSecond: RATE, concurrency: CONCURRENCY, pollers: 8, timeoutMs: 180_000 },
  );
  const onChain = await chainBundles(
    provider,
    { fromBlock, toBlock: await provider.getBlockNumber() },
    chain.relayer,
    chain.deployment.contracts.entryPoint,
  );
  if (onChain.ops !== requests.length) {
    throw new UserOpsFailure(`${requests.length} requests included, but the chain holds ${onChain.ops} operations`);
  }
  return run;
}

/** The services of a scenario on a fresh database (their app tokens are the same app's). */
async function startScenario(chain: UserOpsChain, scenario: Scenario, postgres: PostgresServer, round: number) {
  let database: BenchDatabase | undefined;
  if (scenario.database === "postgres") {
    database = await prepareBenchDatabase(await postgres.createDatabase(`bench_${round}_${scenario.instances}`));
  }
  const services: UserOpsService[] = [];
  for (let i = 0; i < scenario.instances; i++) {
    services.push(await startUserOpsService(chain, { INSTANCE_ID: `bench-${i}` }, database ? { database } : {}));
  }
  return services;
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function main(): Promise<void> {
  const users = await makeUsers(USERS);
  const chain = await startUserOpsChain();
  const postgres = await startPostgresServer();
  const runs = new Map<string, UserOpsRun[]>(SCENARIOS.map((s) => [s.label, []]));
  let services: UserOpsService[] = [];
  try {
    const requests = new Requests(chain.target);
    services = await startScenario(chain, SCENARIOS[0]!, postgres, 0);
    for (let first = 0; first < USERS; first += WARMUP_WAVE) {
      const wave = users.slice(first, first + WARMUP_WAVE);
      await measure(chain, services, requests.next(wave, wave.length));
    }
    await Promise.all(services.map((service) => service.stop()));
    services = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        services = await startScenario(chain, scenario, postgres, round);
        // A few requests first (JIT, connections, the worker's lease), not measured.
        await measure(chain, services, requests.next(users, 20));
        const run = await measure(chain, services, requests.next(users, REQUESTS));
        runs.get(scenario.label)!.push(run);
        console.error(
          `${scenario.label}, run ${round}: ${int(run.acceptedPerSecond)} accepted/s, ${int(run.opsPerSecond)} ops/s`,
        );
        await Promise.all(services.map((service) => service.stop()));
        services = [];
      }
    }
  } finally {
    await Promise.all(services.map((service) => service.stop()));
    postgres.stop();
    await chain.close();
  }

  console.log(
    [
      "## Several instances: acceptance and UserOperations per second",
      "",
      machineLine(),
      "",
      `Fresh in-process Hardhat chain (automine), built-in bundler, default settings; each service a child process ` +
        `(one process each, raw keys). POST /v1/kernel/tx offered at ${int(RATE)} requests/s with at most ` +
        `${CONCURRENCY} in flight, alternating between the instances; ${int(REQUESTS)} requests per run, each one ` +
        `call of TestTarget.record from an already deployed wallet of ${USERS}. Every request ended included with ` +
        "success, carried once by the chain's bundles. Accepted/s = requests / (last 202 − first submission); " +
        "ops/s = requests / (last inclusion − first submission). Everything (chain, load, database, instances) " +
        "shares the machine's cores.",
      "",
      "| Scenario | Runs | Accepted/s (median) | Ops/s (median) | POST p99 (median) | Accepted/s, each run | Ops/s, each run |",
      "| --- | --: | --: | --: | --: | --- | --- |",
      ...SCENARIOS.map((scenario) => {
        const each = runs.get(scenario.label)!;
        return (
          `| ${scenario.label} | ${each.length} | ${int(median(each.map((r) => r.acceptedPerSecond)))} | ` +
          `${int(median(each.map((r) => r.opsPerSecond)))} | ${int(median(each.map((r) => r.acceptP99Ms)))} ms | ` +
          `${each.map((r) => int(r.acceptedPerSecond)).join(", ")} | ${each.map((r) => int(r.opsPerSecond)).join(", ")} |`
        );
      }),
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
