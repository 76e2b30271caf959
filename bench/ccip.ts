/**
 * CCIP-read (EIP-3668) gateway throughput over real HTTP on loopback: the service runs in a child process
 * with a fresh signing key, autocannon GETs `/ccip/{sender}/{data}.json` from this one, and a markdown
 * table of the results is printed. Lookups are built as ethers builds them for the ENS resolver.
 *
 *   npx ts-node bench/ccip.ts [--seconds=10] [--warmup=2] [--only=distinct|repeated]
 *   BENCH_CPU_PROF=<dir>  also writes a V8 CPU profile of the server child to <dir>.
 *
 * Exits non-zero if the server fails to start, answers a check wrongly, or any request fails.
 */
import os from "node:os";
import { Wallet } from "ethers";
import vectors from "../test/vectors/addresses.json";
import { checkCcipAnswers } from "./lib/ccipCheck";
import { type CpuUse, cpuUse, sampleCpu } from "./lib/ccipHostLoad";
import { BENCH_DOMAIN, LookupSource, benchLookup } from "./lib/ccipLookups";
import { type MeasuredRun, measure } from "./lib/loadRun";
import { startServerChild } from "./lib/serverChild";
import { argSeconds, machineLine } from "./lib/benchOptions";

/** Enough lookups to cover every name kind with every record kind and variant. */
const CHECK_SAMPLES = 72;
// As many connections as a busy resolver client pool; the scale quoted for other gateways is at 32 too.
const CONNECTIONS = 32;
const P99_TARGET_MS = 50;
/** Service processes: one per core unless WORKERS says otherwise (the load generator shares the cores). */
const WORKERS = Number(process.env.WORKERS ?? os.availableParallelism());

interface Scenario {
  readonly id: "distinct" | "repeated";
  readonly label: string;
  readonly minRequestsPerSecond: number;
  /** The path of each request, called once per request. */
  readonly nextPath: () => string;
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

/** Runs a scenario for `seconds` on CONNECTIONS connections; with the CPU it took where /proc tells. */
async function run(
  server: { url: string; pid: number },
  scenario: Scenario,
  seconds: number,
): Promise<MeasuredRun & { cpu?: CpuUse }> {
  const before = sampleCpu(server.pid);
  const result = await measure(scenario.label, {
    url: server.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: scenario.nextPath() }) }],
  });
  const after = sampleCpu(server.pid);
  return { ...result, cpu: before && after && cpuUse(before, after, result.requests) };
}

function row(scenario: Scenario, r: MeasuredRun & { cpu?: CpuUse }): string {
  const rateMet = r.requestsPerSecond >= scenario.minRequestsPerSecond;
  const latencyMet = r.p99Ms < P99_TARGET_MS;
  const met =
    rateMet && latencyMet
      ? "yes"
      : `**no** (${[rateMet ? "" : "rate", latencyMet ? "" : "p99"].filter(Boolean).join(", ")})`;
  return (
    `| ${scenario.label} | ${CONNECTIONS} | ${int(r.requestsPerSecond)} | ${r.p50Ms} ms | ${r.p99Ms} ms | ` +
    `≥ ${int(scenario.minRequestsPerSecond)} requests/s, p99 < ${P99_TARGET_MS} ms | ${met} | ` +
    (r.cpu ? `${int(r.cpu.serverMicrosPerRequest)} µs | ${int(r.cpu.otherLoadPercent)} % |` : "n/a | n/a |")
  );
}

async function main(): Promise<void> {
  const seconds = argSeconds("seconds", 10);
  const warmup = argSeconds("warmup", 2);
  const profileDir = process.env.BENCH_CPU_PROF;
  const key = Wallet.createRandom();
  const server = await startServerChild(
    {
      AUTH_TOKEN_SECRET: "ccip-bench-secret-not-for-production-use",
      CONTRACT_KERNEL_FACTORY: vectors.kernelFactory,
      CONTRACT_BASE_FACTORY: vectors.baseFactory,
      CCIP_SIGNER_KEYS: key.privateKey,
      ENS_DOMAIN: BENCH_DOMAIN,
      // The per-IP limit would otherwise throttle the one loopback client.
      CCIP_RATE_LIMIT_PER_MINUTE: "100000000",
      CCIP_ANSWERS_PER_MINUTE: "100000000",
      CCIP_ANSWERS_PER_NETWORK_PER_MINUTE: "100000000",
      RESOLVER_ANONYMOUS_PER_MINUTE: "100000000",
      WORKERS: String(WORKERS),
    },
    profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  );
  const stopOnSignal = () => void server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  const lookups = new LookupSource();
  const repeated = benchLookup(`alice.github.${BENCH_DOMAIN}`, "github:alice", { kind: "addr" }).path;
  const scenarios: readonly Scenario[] = [
    {
      id: "distinct",
      label: "distinct name every request",
      minRequestsPerSecond: 3_000,
      nextPath: () => lookups.nextLookup().path,
    },
    { id: "repeated", label: "same lookup repeated", minRequestsPerSecond: 10_000, nextPath: () => repeated },
  ];
  const rows: string[] = [];
  try {
    await checkCcipAnswers(
      server.url,
      key.address,
      Array.from({ length: CHECK_SAMPLES }, () => lookups.nextLookup()),
    );
    const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
    for (const scenario of scenarios.filter((s) => only === undefined || s.id === only)) {
      await run(server, scenario, warmup);
      rows.push(row(scenario, await run(server, scenario, seconds)));
    }
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    await server.stop();
  }
  console.log(
    [
      "## CCIP-read gateway throughput (GET /ccip/{sender}/{data}.json)",
      "",
      machineLine(),
      "",
      `Loopback HTTP, service in a child process with ${WORKERS} worker(s), autocannon in the parent with ` +
        `${CONNECTIONS} connections; ${seconds} s per scenario after ${warmup} s of warm-up; every request 200. ` +
        `Distinct: ${int(lookups.used)} lookups, each of a name no other asked for (github/tel/e-mail names; ` +
        "addr(bytes32), addr(bytes32,uint256), text mixed), so each is normalized, derived and signed afresh. " +
        "Repeated: addr(bytes32) of alice.github.idwallet.eth every time, answered from the cache.",
      "For scale: on a 2-core machine the ENS reference gateway serves ~700 requests/s and ezccip ~1,000 at 32 connections.",
      "Server CPU: CPU time of all server processes per request. Other load: share of the machine's CPU that " +
        "processes other than the server and autocannon used meanwhile (from /proc); well above 0 % means " +
        "the figures are held down by work the bench does not control.",
      "",
      "| Scenario | Connections | Requests/s | p50 latency | p99 latency | Target | Met | Server CPU / request | Other load |",
      "| --- | --: | --: | --: | --: | --- | --- | --: | --: |",
      ...rows,
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
