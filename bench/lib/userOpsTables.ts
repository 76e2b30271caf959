/** Markdown tables of the UserOperation bench. */
import { cpuBound } from "./cpuBound";
import type { BlockRate } from "./userOpsBlocks";
import type { Phase } from "./userOpsPhase";

export const int = (n: number): string => Math.round(n).toLocaleString("en-US");
export const ms = (n: number): string => `${int(n)} ms`;
/** CPU milliseconds per operation, to the hundredth. */
export const cpuPerOp = (phase: Phase, name: string): string => {
  const spent = phase.cpu.ms[name];
  return spent === undefined ? "–" : `${(spent / phase.run.ops.length).toFixed(2)} ms`;
};

/** How a phase's keys are named in the tables. */
export const keysName = (phase: Phase): string => (phase.keys === "hsm" ? "HSM" : "raw");

/**
 * What bounds a scenario: the service's event loop (one process) or Hardhat's (in the bench's), the machine's cores,
 * or, when no CPU is, `otherwise`.
 */
export function phaseBound(phase: Phase, serviceProcesses: number, otherwise: string, keptUp = false): string {
  const loops = [...(serviceProcesses === 1 ? ["service"] : []), ...(phase.chain === "hardhat" ? ["bench"] : [])];
  return cpuBound(phase.cpu, loops, otherwise, { keptUp });
}

/**
 * What bounds a rate of the interval-mined sweep that was not sustained, when no CPU is: full bundles (the bundle
 * size times the bundles sent a block), or else the service's steps between one block and the next.
 */
function sweepOtherwise(rate: BlockRate): string {
  const p = rate.phase;
  const full = p.run.ops.length / p.bundles >= 0.9 * p.maxOpsPerBundle;
  return full
    ? `full bundles (${p.maxOpsPerBundle} operations, TX_MAX_OPS_PER_BUNDLE) times the bundles sent a block`
    : "the service's steps between one block and the next";
}

/** What bounds an automine scenario when no CPU does. */
const automineOtherwise = (phase: Phase) =>
  phase.maxOpsPerBundle === 1
    ? "the serial cycle of each bundle (simulate, sign, send, mine, settle)"
    : "the offered rate and the requests in flight";

/** The automine scenarios, one row each; `serviceProcesses`: the service's processes (WORKERS). */
export function resultTable(phases: readonly Phase[], serviceProcesses: number): string[] {
  return [
    "| Chain | Wallet code | Keys | Scenario | Max ops/bundle | Requests | Offered/s | Accepted/s | Ops/s | p50 latency | p99 latency | " +
      "POST p99 | Bundles | Mean ops/bundle | Gas/op | Service CPU/op | Chain CPU/op | Bench CPU/op | Other load | Bound by |",
    "| --- | --- | --- | --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --- |",
    ...phases.map(
      (p) =>
        `| ${p.chain} | ${p.walletCode} | ${keysName(p)} | ${p.label} | ${p.maxOpsPerBundle} | ${int(p.run.ops.length)} | ${int(p.offeredPerSecond)} | ` +
        `${int(p.run.acceptedPerSecond)} | ${int(p.run.opsPerSecond)} | ${ms(p.run.p50Ms)} | ${ms(p.run.p99Ms)} | ` +
        `${ms(p.run.acceptP99Ms)} | ${int(p.bundles)} | ${(p.run.ops.length / p.bundles).toFixed(1)} | ` +
        `${int(p.gasPerOp)} | ${cpuPerOp(p, "service")} | ${p.chain === "hardhat" ? "in bench" : cpuPerOp(p, "chain")} | ` +
        `${cpuPerOp(p, "bench")} | ${p.cpu.otherLoadPercent.toFixed(0)} % | ` +
        `${phaseBound(p, serviceProcesses, automineOtherwise(p))} |`,
    ),
  ];
}

/**
 * The custody signatures of the automine scenarios, from the audit log: by purpose, per bundle and per operation, and
 * the custody roots the chain's bundles carry (each checked against its audit row).
 */
export function custodyTable(phases: readonly Phase[]): string[] {
  const counted = phases.filter((p) => p.custody);
  if (counted.length === 0) return [];
  return [
    "",
    "Custody signatures: the audit log's rows of the wallet and sponsorship keys during the scenario (simulations " +
      "included), by purpose; roots on chain: custody roots the bundles carry, each found in a custodyRoot row that " +
      "covers exactly its bundle's operations. Relayer: the relayer key's transaction signatures.",
    "",
    "| Chain | Wallet code | Keys | Scenario | Bundles | Ops | userOperation | sponsorship | custodyRoot | " +
      "Custody signatures/bundle | Custody signatures/op | Roots on chain (ops under them) | Relayer signatures |",
    "| --- | --- | --- | --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
    ...counted.map((p) => {
      const c = p.custody!;
      const n = (purpose: keyof typeof c.byPurpose) => int(c.byPurpose[purpose] ?? 0);
      return (
        `| ${p.chain} | ${p.walletCode} | ${keysName(p)} | ${p.label} | ${int(p.bundles)} | ${int(p.run.ops.length)} | ` +
        `${n("userOperation")} | ${n("sponsorship")} | ${n("custodyRoot")} | ${(c.custody / p.bundles).toFixed(2)} | ` +
        `${(c.custody / p.run.ops.length).toFixed(2)} | ${int(c.rootsOnChain)} (${int(c.opsUnderRoots)}) | ` +
        `${n("relayerTransaction")} |`
      );
    }),
  ];
}

/** The interval-mined sweep, one row per offered rate; `serviceProcesses`: the service's processes (WORKERS). */
export function blockTable(rates: readonly BlockRate[], serviceProcesses: number): string[] {
  return [
    "| Offered/s | Requests | Accepted/s | Ops/s | Blocks p50 | Blocks p99 | Blocks max | p50 latency | p99 latency | " +
      "Bundles | Mean ops/bundle | Service CPU/op | Other load | Sustained (p99 ≤ 2 blocks) | Bound by |",
    "| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --- | --- |",
    ...rates.map((rate) => {
      const { phase: p, blocks, sustained } = rate;
      const sent = p.run.ops.length;
      const stopped = p.run.unsent > 0 ? ` (sending stopped after ${int(sent)} of ${int(sent + p.run.unsent)})` : "";
      return (
        `| ${int(p.offeredPerSecond)} | ${int(sent)} | ${int(p.run.acceptedPerSecond)} | ${int(p.run.opsPerSecond)} | ` +
        `${blocks.p50} | ${blocks.p99} | ${blocks.max} | ${ms(p.run.p50Ms)} | ${ms(p.run.p99Ms)} | ${int(p.bundles)} | ` +
        `${(sent / p.bundles).toFixed(1)} | ${cpuPerOp(p, "service")} | ${p.cpu.otherLoadPercent.toFixed(0)} % | ` +
        `${sustained ? "yes" : "no"}${stopped} | ${phaseBound(p, serviceProcesses, sweepOtherwise(rate), sustained)} |`
      );
    }),
  ];
}

/** The service's chain calls by method during a scenario (USEROPS_RPC_TRACE=1). */
export function rpcTable(phase: Phase): string[] {
  if (!phase.rpc) return [];
  const ops = phase.run.ops.length;
  return [
    "",
    `Chain calls of the service, ${phase.chain} ${phase.label} (${phase.run.seconds.toFixed(1)} s; latency includes ` +
      "queueing in the node):",
    "",
    "| Method | Calls | Calls/op | Mean | Max | Total | Total/op |",
    "| --- | --: | --: | --: | --: | --: | --: |",
    ...phase.rpc.map(
      (m) =>
        `| ${m.method} | ${int(m.calls)} | ${(m.calls / ops).toFixed(2)} | ${(m.totalMs / m.calls).toFixed(1)} ms | ` +
        `${ms(m.maxMs)} | ${ms(m.totalMs)} | ${(m.totalMs / ops).toFixed(1)} ms |`,
    ),
  ];
}
