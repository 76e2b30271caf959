import { expect } from "chai";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { type ServiceChain, stopAll } from "../helpers/chainWithTarget";
import { type FloodPlan, flood } from "../helpers/lookupFlood";
import { prepareServiceOnChain } from "../helpers/serviceOnChain";
import { onPostgres } from "../helpers/testDatabase";
import { serviceRequests } from "../helpers/serviceRequests";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";

/** Distinct clients of the flood, as the gateway's per-IP limits see them; lookups sent; at most how many at once. */
const SOURCES = 32;
const LOOKUPS = 3_000;
const IN_FLIGHT = 48;
/**
 * The documented bound (docs/robustness.md): the answer cache holds at most CCIP_CACHE_MB (32) of answers and what
 * lookups in flight hold is bounded by the body limit, so the service runs under this flood with its heap capped at
 * HEAP_MIB, and its resident memory stays below MAX_RESIDENT_MIB. Without the cache's bound each of these lookups kept
 * about 55 KB: the heap ran out within the flood.
 */
const HEAP_MIB = 192;
const MAX_RESIDENT_MIB = 320;

/** The process's resident memory in MiB (proc(5): VmRSS); 0 once it has gone. */
function residentMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The flood from a process of its own, so the test's process (which runs the chain) keeps its share of the CPU. */
async function floodFromOwnProcess(plan: FloodPlan): Promise<Record<number, number>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["-r", "sucrase/register/ts", path.join(__dirname, "..", "helpers", "lookupFlood.ts"), JSON.stringify(plan)],
    { maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout) as Record<number, number>;
}

describe("CCIP-read gateway under a flood (e2e: the service in its own process, real HTTP from many addresses)", () => {
  let setup: ServiceChain;
  const running: ServiceProcess[] = [];

  before(async function () {
    // The flood is about the process's memory, the same on either database (the shared answer counts have their own
    // tests on both): the PostgreSQL run, beside the SQLite one on the same cores, leaves it out.
    if (onPostgres()) this.skip();
    setup = await prepareServiceOnChain({ ens: true });
  });
  after(async () => {
    if (setup) await stopAll(setup, running, []);
  });

  it("an outsider floods the gateway with distinct maximum-size lookups from many addresses: memory stays bounded and a transaction submitted meanwhile is included", async function () {
    this.timeout(300_000);
    const service = await startServiceProcess(
      setup.env(setup.chain.rpcUrl, { NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}` }),
    );
    running.push(service);
    const plan = { url: service.url, sender: setup.deployment.contracts.ensResolver, sources: SOURCES };
    // A warm-up, so the baseline holds what any busy gateway holds (compiled code, sockets, buffers).
    expect(await flood({ ...plan, lookups: IN_FLIGHT, inFlight: IN_FLIGHT, firstName: LOOKUPS })).to.deep.equal({
      200: IN_FLIGHT,
    });
    const baseline = residentMiB(service.pid);

    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(service.pid))), 100);
    const requests = serviceRequests(service.url, setup.appToken, setup.userToken);
    let statuses: Record<number, number>;
    let tx;
    try {
      const flooded = floodFromOwnProcess({ ...plan, lookups: LOOKUPS, inFlight: IN_FLIGHT, firstName: 0 });
      const txId = await requests.submit("tel:15550001111", [{ to: setup.relayer, data: "0x" }]);
      [tx, statuses] = await Promise.all([requests.final(txId), flooded]);
    } finally {
      clearInterval(sampler);
    }

    expect(tx.status, JSON.stringify(tx)).to.equal("included");
    // Every lookup was answered (each address stayed under its limits), so the cache was offered every answer.
    expect(statuses).to.deep.equal({ 200: LOOKUPS });
    expect(peak, `resident memory grew from ${baseline} to ${peak} MiB`).to.be.below(MAX_RESIDENT_MIB);
  });
});
