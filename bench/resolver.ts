/**
 * POST /v1/resolver throughput over real HTTP on loopback, against the CCIP gateway's distinct-name lookups on the
 * same server in the same run (issue 22: single ids must be served at least as fast). The service runs in a child
 * process, autocannon loads it from this one, and a markdown table of the results is printed. Every id is distinct
 * for the run, and so is every CCIP name.
 *
 *   npx ts-node bench/resolver.ts [--seconds=10] [--warmup=2] [--only=ccip|1|1000]
 *   BENCH_CPU_PROF=<dir>  also writes a V8 CPU profile of the server child to <dir>.
 *   WORKERS=<n>           service processes (default 1: the targets are per process).
 *
 * Exits non-zero if the server fails to start, answers a check wrongly, or any request fails.
 */
import { Wallet } from "ethers";
import vectors from "../test/vectors/addresses.json";
import { BodySource } from "./lib/loadBodies";
import { checkAnswers } from "./lib/loadCheck";
import { checkCcipAnswers } from "./lib/ccipCheck";
import { type CpuUse, cpuUse, sampleCpu } from "./lib/ccipHostLoad";
import { BENCH_DOMAIN, LookupSource } from "./lib/ccipLookups";
import { type MeasuredRun, measure, runLoad } from "./lib/loadRun";
import { startServerChild } from "./lib/serverChild";
import { argSeconds, machineLine } from "./lib/benchOptions";

/** One measured scenario: what it did, and how many ids each request carried (0 for a CCIP lookup). */
interface Row {
  readonly id: string;
  readonly label: string;
  readonly connections: number;
  readonly idsPerRequest: number;
  readonly run: MeasuredRun & { cpu?: CpuUse };
}

// The CCIP bench's 32 connections for single ids and CCIP alike, so the two compare like for like (single-id
// throughput was flat from 10 to 100 connections on a 2-core machine); 4 for batches, which were flat from 2 to 16.
const SINGLE_CONNECTIONS = 32;
const BATCH_CONNECTIONS = 4;
const MAX_IDS = 1_000;
/** Issue 22's target for 1,000-id batches on one service process. */
const BATCH_IDS_PER_SECOND = 60_000;
const CHECK_CCIP_SAMPLES = 24;
/** Service processes: 1 unless WORKERS says otherwise (the targets are per process; autocannon shares the cores). */
const WORKERS = Number(process.env.WORKERS ?? 1);

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

async function main(): Promise<void> {
  const seconds = argSeconds("seconds", 10);
  const warmup = argSeconds("warmup", 2);
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  const profileDir = process.env.BENCH_CPU_PROF;
  const key = Wallet.createRandom();
  const server = await startServerChild(
    {
      AUTH_TOKEN_SECRET: "resolver-bench-secret-not-for-production-use",
      CONTRACT_KERNEL_FACTORY: vectors.kernelFactory,
      CONTRACT_BASE_FACTORY: vectors.baseFactory,
      RESOLVER_MAX_IDS: String(MAX_IDS),
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
  const bodies = new BodySource();
  const lookups = new LookupSource();
  /** Runs `load` for `seconds`, with the server's CPU time where /proc tells. */
  const withCpu = async (load: (s: number) => Promise<MeasuredRun>, s: number) => {
    const before = sampleCpu(server.pid);
    const run = await load(s);
    const after = sampleCpu(server.pid);
    return { ...run, cpu: before && after && cpuUse(before, after, run.requests) };
  };
  const scenarios = [
    {
      id: "ccip",
      label: "CCIP-read, distinct name every request",
      connections: SINGLE_CONNECTIONS,
      idsPerRequest: 0,
      load: (s: number) =>
        measure("ccip distinct", {
          url: server.url,
          connections: SINGLE_CONNECTIONS,
          duration: s,
          requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: lookups.nextLookup().path }) }],
        }),
    },
    ...[
      { label: "1 id per request", idsPerRequest: 1, connections: SINGLE_CONNECTIONS },
      { label: "1,000 ids per request", idsPerRequest: MAX_IDS, connections: BATCH_CONNECTIONS },
    ].map((scenario) => ({
      ...scenario,
      id: String(scenario.idsPerRequest),
      load: (s: number) => runLoad(server.url, scenario, bodies, s),
    })),
  ];
  const rows: Row[] = [];
  try {
    await checkAnswers(server.url, bodies.nextIds(MAX_IDS));
    await checkCcipAnswers(
      server.url,
      key.address,
      Array.from({ length: CHECK_CCIP_SAMPLES }, () => lookups.nextLookup()),
    );
    for (const scenario of scenarios.filter((s) => only === undefined || s.id === only)) {
      await scenario.load(warmup);
      rows.push({ ...scenario, run: await withCpu(scenario.load, seconds) });
    }
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    await server.stop();
  }
  console.log(report(rows, { seconds, warmup, ids: bodies.used, lookups: lookups.used }));
}

/** The markdown section: the table, then each target against this run's figures. */
function report(rows: readonly Row[], run: { seconds: number; warmup: number; ids: number; lookups: number }): string {
  const ccip = rows.find((r) => r.id === "ccip")?.run.requestsPerSecond;
  const single = rows.find((r) => r.id === "1")?.run.requestsPerSecond;
  const batch = rows.find((r) => r.id === String(MAX_IDS))?.run;
  const cpu = (r: Row) => {
    if (!r.run.cpu) return "n/a | n/a | n/a";
    const perId = r.idsPerRequest > 0 ? `${(r.run.cpu.serverMicrosPerRequest / r.idsPerRequest).toFixed(1)} µs` : "–";
    return `${int(r.run.cpu.serverMicrosPerRequest)} µs | ${perId} | ${int(r.run.cpu.otherLoadPercent)} %`;
  };
  const met = (ok: boolean) => (ok ? "yes" : "**no**");
  const targets = [
    batch &&
      `| 1,000-id batches ≥ ${int(BATCH_IDS_PER_SECOND)} ids/s | ${int(batch.requestsPerSecond * MAX_IDS)} ids/s | ` +
        `${met(batch.requestsPerSecond * MAX_IDS >= BATCH_IDS_PER_SECOND)} |`,
    single !== undefined &&
      ccip !== undefined &&
      `| single ids ≥ CCIP distinct of this run (${int(ccip)} requests/s) | ${int(single)} requests/s | ` +
        `${met(single >= ccip)} |`,
  ].filter(Boolean);
  return [
    "## POST /v1/resolver throughput",
    "",
    machineLine(),
    "",
    `Loopback HTTP, service in a child process with ${WORKERS} worker(s), autocannon in the parent; ${run.seconds} s ` +
      `per scenario after ${run.warmup} s of warm-up; every request 200, every id distinct (${int(run.ids)} ids in ` +
      "all), tel/github/email mixed, 1 in 10 spelled non-canonically. The CCIP row is GET /ccip/{sender}/{data}.json " +
      `on the same server, a name no other request asked for each time (${int(run.lookups)} lookups), as in the CCIP bench.`,
    "Server CPU: CPU time of the server's processes per request and per id, from /proc. Other load: the machine's " +
      "CPU used meanwhile by processes other than the server and autocannon.",
    "",
    "| Scenario | Connections | Requests/s | Ids/s | p50 latency | p99 latency | Server CPU / request | / id | Other load |",
    "| --- | --: | --: | --: | --: | --: | --: | --: | --: |",
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.connections} | ${int(r.run.requestsPerSecond)} | ` +
        `${r.idsPerRequest > 0 ? int(r.run.requestsPerSecond * r.idsPerRequest) : "–"} | ${r.run.p50Ms} ms | ` +
        `${r.run.p99Ms} ms | ${cpu(r)} |`,
    ),
    ...(targets.length > 0 ? ["", "| Target | Measured | Met |", "| --- | --: | --- |", ...targets] : []),
  ].join("\n");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
