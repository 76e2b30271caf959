/** The UserOperation bench's section of bench/results.md, with its targets (issue 22) met or not. */
import type { ChainNodeKind } from "../../scripts/localStack/chainNode";
import { machineLine } from "./benchOptions";
import { BACKLOG_BLOCKS, BLOCK_GAS_LIMIT, type BlockRate, MAX_BLOCKS_P99 } from "./userOpsBlocks";
import type { Phase } from "./userOpsPhase";
import { blockTable, int, resultTable, rpcTable } from "./userOpsTables";

/** What the run was, for the report's prose. */
export interface ReportSettings {
  readonly workers: number;
  readonly keys: "process" | "hsm";
  readonly concurrency: number;
  readonly users: number;
  readonly blockTime: number;
  readonly blockUsers: number;
  readonly blockSeconds: number;
  readonly blockMaxOps?: string;
}

const TARGET_HARDHAT_OPS_PER_SECOND = 200;
const TARGET_RATIO = 5;
const TARGET_ANVIL_OPS_PER_SECOND = 500;
const TARGET_ANVIL_REQUESTS = 2_000;
const TARGET_SERVICE_CPU_MS = 1.5;
const TARGET_BLOCK_RATE = 200;

const verdict = (met: boolean) => (met ? "PASS" : "**FAIL**");
const cpuMsPerOp = (phase: Phase) => (phase.cpu.ms.service ?? NaN) / phase.run.ops.length;

/** The targets of whatever ran: Hardhat's as before, anvil's bundled rate and CPU, the 2-s blocks' latency. */
function targetRows(blockTime: number, phases: readonly Phase[], rates: readonly BlockRate[]): string[] {
  const rows: string[] = [];
  const find = (chain: ChainNodeKind, label: string) => phases.find((p) => p.chain === chain && p.label === label);
  const [hardhatBundled, hardhatSingle] = [find("hardhat", "bundled"), find("hardhat", "one op per bundle")];
  if (hardhatBundled && hardhatSingle) {
    const ratio = hardhatBundled.run.opsPerSecond / hardhatSingle.run.opsPerSecond;
    rows.push(
      `| Hardhat: ≥ ${TARGET_HARDHAT_OPS_PER_SECOND} ops/s with bundling | ${int(hardhatBundled.run.opsPerSecond)} ` +
        `ops/s | ${verdict(hardhatBundled.run.opsPerSecond >= TARGET_HARDHAT_OPS_PER_SECOND)} |`,
      `| Hardhat: bundled ≥ ${TARGET_RATIO}× one op per bundle | ${ratio.toFixed(1)}× | ${verdict(ratio >= TARGET_RATIO)} |`,
    );
  }
  const anvilBundled = find("anvil", "bundled");
  if (anvilBundled) {
    const { opsPerSecond, ops } = anvilBundled.run;
    const met = opsPerSecond >= TARGET_ANVIL_OPS_PER_SECOND && ops.length >= TARGET_ANVIL_REQUESTS;
    rows.push(
      `| anvil, automine: ≥ ${TARGET_ANVIL_OPS_PER_SECOND} ops/s bundled over ≥ ${int(TARGET_ANVIL_REQUESTS)} ` +
        `requests | ${int(opsPerSecond)} ops/s over ${int(ops.length)} | ${verdict(met)} |`,
      `| anvil, automine, bundled: service CPU ≤ ${TARGET_SERVICE_CPU_MS} ms per operation | ` +
        `${cpuMsPerOp(anvilBundled).toFixed(2)} ms | ${verdict(cpuMsPerOp(anvilBundled) <= TARGET_SERVICE_CPU_MS)} |`,
    );
  }
  const atTarget = rates.filter((r) => r.phase.offeredPerSecond >= TARGET_BLOCK_RATE);
  if (atTarget.length > 0) {
    const best = atTarget.find((r) => r.blocks.p50 <= 1 && r.blocks.p99 <= MAX_BLOCKS_P99 && r.sustained);
    const shown = best ?? atTarget[0]!;
    rows.push(
      `| anvil, ${blockTime}-s blocks: p50 ≤ 1 block, p99 ≤ ${MAX_BLOCKS_P99} blocks at ≥ ${TARGET_BLOCK_RATE} ` +
        `requests/s | p50 ${shown.blocks.p50}, p99 ${shown.blocks.p99} at ${int(shown.phase.offeredPerSecond)}/s` +
        `${shown.sustained ? "" : " (not sustained)"} | ${verdict(best !== undefined)} |`,
    );
  }
  return rows.length === 0 ? [] : ["", "| Target | Measured | Met |", "| --- | --: | --- |", ...rows];
}

/** The bench's section of the report: the automine table, the targets, the chain calls, the interval-mined sweep. */
export function userOpsReport(settings: ReportSettings, phases: readonly Phase[], rates: readonly BlockRate[]): string {
  const keys =
    settings.keys === "hsm" ? "every key in a SoftHSM2 token, signed through PKCS#11" : "raw keys in its environment";
  const sustained = rates.filter((r) => r.sustained).map((r) => r.phase.offeredPerSecond);
  const blocks =
    rates.length === 0
      ? []
      : [
          "",
          `### Inclusion in blocks on anvil mining a block every ${settings.blockTime} s`,
          "",
          `A fresh anvil, every wallet (${int(settings.blockUsers)}, requests round-robin over them) deployed under automine, ` +
            `then a block gas limit of ${int(BLOCK_GAS_LIMIT / 1e6)}M (a 2-s L2's, such as Base's, is well above 100M; ` +
            `anvil's default 30M would hold two full bundles) and anvil_setIntervalMining(${settings.blockTime}); one ` +
            `service with the default settings` +
            `${settings.blockMaxOps ? ` but TX_MAX_OPS_PER_BUNDLE=${settings.blockMaxOps}` : ""}; each rate offered for ` +
            `${settings.blockSeconds} s, or until ${BACKLOG_BLOCKS} blocks' worth of requests waited (then not sustained). Blocks = the ` +
            "receipt's block − the chain's block number read when the 202 arrived (1: the next block). Latency " +
            "in ms is submission → the service recording the inclusion.",
          "",
          ...blockTable(rates),
          "",
          `Largest offered rate sustained with p99 ≤ ${MAX_BLOCKS_P99} blocks: ` +
            `${sustained.length > 0 ? `${int(Math.max(...sustained))} requests/s` : "none of those tried"}.`,
          ...rates.flatMap((r) => rpcTable(r.phase)),
        ];
  return [
    "## UserOperations per second, submission to inclusion",
    "",
    machineLine(),
    "",
    `Each chain fresh: Hardhat in this process, anvil in its own (automine); the service in a child process ` +
      `(${settings.workers} process(es), built-in bundler, default settings but TX_MAX_OPS_PER_BUNDLE; ${keys}); POST ` +
      `/v1/kernel/tx offered at the rate shown with at most ${settings.concurrency} in flight, each one call of ` +
      `TestTarget.record (value 0) from an already deployed wallet, ${settings.users} distinct tel: users in turn; GET ` +
      "?wait=true until final. Every request ended included with success, and the relayer's handleOps transactions " +
      "carry exactly the requests. Ops/s = requests / (last inclusion − first submission); latency is submission → " +
      "included. CPU per op: CPU time (user + system, from /proc) over the run ÷ requests, of the service's process, " +
      "of anvil's, and of this bench process (the load generator, and Hardhat's chain when it is the chain); other " +
      "load: the machine's CPU used by everything else meanwhile.",
    "",
    ...resultTable(phases),
    ...targetRows(settings.blockTime, phases, rates),
    ...phases.flatMap(rpcTable),
    ...blocks,
  ].join("\n");
}
