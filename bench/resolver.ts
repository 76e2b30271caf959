/**
 * POST /v1/resolver throughput over real HTTP on loopback: the service runs in a child process, autocannon
 * loads it from this one, and a markdown table of the results is printed. Every id is distinct for the run.
 *
 *   npx ts-node bench/resolver.ts [--seconds=10] [--warmup=2] [--only=<ids per request>]
 *   BENCH_CPU_PROF=<dir>  also writes a V8 CPU profile of the server child to <dir>.
 *
 * Exits non-zero if the server fails to start, answers a check wrongly, or any request fails.
 */
import os from "node:os";
import vectors from "../test/vectors/addresses.json";
import { BodySource } from "./lib/loadBodies";
import { checkAnswers } from "./lib/loadCheck";
import { type LoadResult, type LoadScenario, runLoad } from "./lib/loadRun";
import { startServerChild } from "./lib/serverChild";
import { argSeconds, machineLine } from "./lib/benchOptions";

interface Target {
  readonly text: string;
  readonly met: (r: LoadResult) => boolean;
}

// Tuned on a 2-core machine: throughput was flat from 10 to 100 connections for single ids and from 2 to 16 for
// batches, while latency grew with queueing; these keep the server's one event loop always busy.
const SCENARIOS: readonly (LoadScenario & { readonly target: Target })[] = [
  {
    label: "1 id per request",
    idsPerRequest: 1,
    connections: 25,
    target: { text: "≥ 5,000 requests/s", met: (r) => r.requestsPerSecond >= 5_000 },
  },
  {
    label: "1,000 ids per request",
    idsPerRequest: 1_000,
    connections: 4,
    target: { text: "≥ 50,000 ids/s", met: (r) => r.idsPerSecond >= 50_000 },
  },
];

const MAX_IDS = 1_000;
/** Service processes: one per core unless WORKERS says otherwise (the load generator shares the cores). */
const WORKERS = Number(process.env.WORKERS ?? os.availableParallelism());

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

async function main(): Promise<void> {
  const seconds = argSeconds("seconds", 10);
  const warmup = argSeconds("warmup", 2);
  const profileDir = process.env.BENCH_CPU_PROF;
  const server = await startServerChild(
    {
      AUTH_TOKEN_SECRET: "resolver-bench-secret-not-for-production-use",
      CONTRACT_KERNEL_FACTORY: vectors.kernelFactory,
      CONTRACT_BASE_FACTORY: vectors.baseFactory,
      RESOLVER_MAX_IDS: String(MAX_IDS),
      WORKERS: String(WORKERS),
    },
    profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  );
  const stopOnSignal = () => void server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  const bodies = new BodySource();
  const rows: string[] = [];
  try {
    await checkAnswers(server.url, bodies.nextIds(MAX_IDS));
    const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
    for (const scenario of SCENARIOS.filter((s) => only === undefined || String(s.idsPerRequest) === only)) {
      await runLoad(server.url, scenario, bodies, warmup);
      const r = await runLoad(server.url, scenario, bodies, seconds);
      rows.push(
        `| ${scenario.label} | ${scenario.connections} | ${int(r.requestsPerSecond)} | ${int(r.idsPerSecond)} | ` +
          `${r.p50Ms} ms | ${r.p99Ms} ms | ${scenario.target.text} | ${scenario.target.met(r) ? "yes" : "**no**"} |`,
      );
    }
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    await server.stop();
  }
  console.log(
    [
      "## POST /v1/resolver throughput",
      "",
      machineLine(),
      "",
      `Loopback HTTP, service in a child process with ${WORKERS} worker(s), autocannon in the parent; ${seconds} s per scenario after ` +
        `${warmup} s of warm-up; every request 200, every id distinct (${int(bodies.used)} ids in all), ` +
        "tel/github/email mixed, 1 in 10 spelled non-canonically.",
      "",
      "| Scenario | Connections | Requests/s | Ids/s | p50 latency | p99 latency | Target | Met |",
      "| --- | --: | --: | --: | --: | --: | --- | --- |",
      ...rows,
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
