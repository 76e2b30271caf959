/**
 * Sustained UserOperations per second from API submission to inclusion on a local chain: POST /v1/kernel/tx at a
 * fixed offered rate, each request one cheap call (TestTarget.record, value 0) from one of many wallets, until every
 * request is `included` with success; once with bundling (the default TX_MAX_OPS_PER_BUNDLE) and once with one
 * operation per bundle. A fresh in-process Hardhat chain (automine) is the chain; the service runs in a child
 * process, so neither the chain nor the load generator shares its event loop.
 *
 *   npx hardhat run bench/userops.ts
 *
 * `hardhat run` passes no script arguments, so the settings are environment variables (defaults shown):
 *   USEROPS_BUNDLED=1000 USEROPS_UNBUNDLED=200   requests measured per scenario
 *   USEROPS_RATE=500 USEROPS_CONCURRENCY=32      offered requests/s, most POSTs in flight
 *   WORKERS=1                                    service processes (the transaction worker runs in one of them)
 *   USEROPS_KEYS=process                         where the service's keys are: `process` (raw keys in its
 *                                                environment) or `hsm` (a SoftHSM2 token, signed through PKCS#11)
 *   USEROPS_RPC_TRACE=1                          also time the service's chain calls by method, per scenario
 *   BENCH_CPU_PROF=<dir>                         also write V8 CPU profiles of the service children to <dir>
 *
 * Exits non-zero if anything fails: a request refused, failed or not included with success, or the chain's
 * bundles not carrying exactly the requests. A target that is not met is reported, not an error.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../gateway/config/load";
import { type CustodyToken, createCustodyToken } from "../scripts/softhsm/custodyToken";
import { machineLine } from "./lib/benchOptions";
import { chainBundles } from "./lib/userOpsChain";
import { type UserOpRequest, type UserOpsRun, UserOpsFailure, runUserOps } from "./lib/userOpsLoad";
import { Requests, makeUsers } from "./lib/userOpsUsers";
import { type MethodTimes, type RpcTrace, startRpcTrace } from "./lib/userOpsRpcTrace";
import {
  BENCH_TOKEN_SECRET,
  type ServiceOptions,
  type UserOpsChain,
  type UserOpsService,
  startUserOpsChain,
  startUserOpsService,
} from "./lib/userOpsStack";

const TARGET_OPS_PER_SECOND = 200;
const TARGET_RATIO = 5;

/** A positive integer setting from the environment, or `fallback`. */
function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

const BUNDLED_OPS = envInt("USEROPS_BUNDLED", 1_000);
const UNBUNDLED_OPS = envInt("USEROPS_UNBUNDLED", 200);
/** Offered load: well above the bundled target, so the pipeline, not the load generator, sets the pace. */
const RATE = envInt("USEROPS_RATE", 500);
const CONCURRENCY = envInt("USEROPS_CONCURRENCY", 32);
const WORKERS = envInt("WORKERS", 1);
const KEYS = process.env.USEROPS_KEYS || "process";
if (KEYS !== "process" && KEYS !== "hsm") throw new Error("USEROPS_KEYS must be process or hsm");
const POLLERS = 8;
/**
 * Distinct wallets; requests go round-robin over them, so a wallet's next request is this many requests later:
 * more than the worker reads at once (2 × TX_MAX_OPS_PER_BUNDLE), so every bundle can be full (one op per wallet).
 */
const USERS = 256;
/**
 * Wallets deployed per warm-up wave: a bundle of first operations (each deploying its wallet, ~330k gas) stays under
 * the 2^24 transaction gas cap of EIP-7825 (Osaka, Hardhat's default hardfork), so the worker need not split it.
 */
const WARMUP_WAVE = 32;
/** Requests of the fresh one-op-per-bundle service before measuring (JIT, connections). */
const WARMUP_UNBUNDLED = 20;
const RUN_TIMEOUT_MS = 120_000;
const PROFILE_ARGS = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

interface Phase {
  readonly label: string;
  readonly maxOpsPerBundle: number;
  readonly run: UserOpsRun;
  readonly bundles: number;
  readonly gasPerOp: number;
  readonly rpc?: readonly MethodTimes[];
}

/** Runs `requests` against `service` and checks them against the bundles the chain holds afterwards. */
async function measure(
  label: string,
  maxOpsPerBundle: number,
  chain: UserOpsChain,
  service: UserOpsService,
  requests: readonly UserOpRequest[],
  trace?: RpcTrace,
): Promise<Phase> {
  const provider = chain.node.provider;
  const fromBlock = (await provider.getBlockNumber()) + 1;
  trace?.take();
  const run = await runUserOps(service.url, service.appToken, requests, {
    ratePerSecond: RATE,
    concurrency: CONCURRENCY,
    pollers: POLLERS,
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const rpc = trace?.take();
  const onChain = await chainBundles(
    provider,
    { fromBlock, toBlock: await provider.getBlockNumber() },
    chain.relayer,
    chain.deployment.contracts.entryPoint,
  );
  const unknown = [...new Set(run.ops.map((o) => o.transactionHash.toLowerCase()))].filter(
    (hash) => !onChain.txHashes.has(hash),
  );
  if (onChain.ops !== requests.length || unknown.length > 0) {
    throw new UserOpsFailure(
      `${label}: ${requests.length} requests included, but the chain holds ${onChain.ops} operations in ` +
        `${onChain.bundles} bundles${unknown.length > 0 ? `, and not ${unknown.join(", ")}` : ""}`,
    );
  }
  return {
    label,
    maxOpsPerBundle,
    run,
    bundles: onChain.bundles,
    gasPerOp: Number(onChain.gasUsed) / onChain.ops,
    ...(rpc ? { rpc } : {}),
  };
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");
const ms = (n: number): string => `${int(n)} ms`;

function resultTable(phases: readonly Phase[]): string[] {
  return [
    "| Scenario | Max ops/bundle | Requests | Accepted/s | Ops/s | p50 latency | p99 latency | POST p99 | " +
      "Bundles | Mean ops/bundle | Gas/op |",
    "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
    ...phases.map(
      (p) =>
        `| ${p.label} | ${p.maxOpsPerBundle} | ${int(p.run.ops.length)} | ${int(p.run.acceptedPerSecond)} | ` +
        `${int(p.run.opsPerSecond)} | ${ms(p.run.p50Ms)} | ${ms(p.run.p99Ms)} | ${ms(p.run.acceptP99Ms)} | ` +
        `${int(p.bundles)} | ${(p.run.ops.length / p.bundles).toFixed(1)} | ${int(p.gasPerOp)} |`,
    ),
  ];
}

function rpcTable(phase: Phase): string[] {
  if (!phase.rpc) return [];
  const ops = phase.run.ops.length;
  return [
    "",
    `Chain calls of the service, ${phase.label} (${phase.run.seconds.toFixed(1)} s; latency includes queueing in the node):`,
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

async function main(): Promise<void> {
  const users = await makeUsers(USERS);
  const chain = await startUserOpsChain();
  const phases: Phase[] = [];
  let trace: RpcTrace | undefined;
  let service: UserOpsService | undefined;
  const tokenDir = KEYS === "hsm" ? mkdtempSync(path.join(tmpdir(), "idwallet-userops-hsm-")) : undefined;
  const removeToken = () => tokenDir && rmSync(tokenDir, { recursive: true, force: true });
  const stopOnSignal = () =>
    void Promise.allSettled([service?.stop(), trace?.close(), chain.close()]).finally(() => {
      removeToken();
      process.exit(130);
    });
  process.once("SIGINT", stopOnSignal);
  try {
    // The service's own default, read from its configuration rather than restated here.
    const defaultMaxOps = loadConfig({
      TEST_DEPLOYMENT: "true",
      AUTH_TOKEN_SECRET: BENCH_TOKEN_SECRET,
      CONTRACT_KERNEL_FACTORY: chain.deployment.contracts.kernelFactory,
      CONTRACT_BASE_FACTORY: chain.deployment.contracts.baseFactory,
    }).transactions.maxOpsPerBundle;
    if (process.env.USEROPS_RPC_TRACE === "1") trace = await startRpcTrace(chain.node.rpcUrl);
    // Both services of the run sign with the same token, made once.
    const token: CustodyToken | undefined =
      tokenDir === undefined
        ? undefined
        : await createCustodyToken({ dir: tokenDir, token: "userops-bench", keys: chain.keys });
    const options: ServiceOptions = {
      nodeArgs: PROFILE_ARGS,
      ...(trace ? { rpcUrl: trace.url } : {}),
      ...(token ? { token } : {}),
    };
    const requests = new Requests(chain.target);

    service = await startUserOpsService(chain, { WORKERS: String(WORKERS) }, options);
    // Warm-up: one request per user, which deploys every wallet, so the measured operations are plain calls.
    for (let first = 0; first < USERS; first += WARMUP_WAVE) {
      const wave = users.slice(first, first + WARMUP_WAVE);
      await measure("warm-up", defaultMaxOps, chain, service, requests.next(wave, wave.length));
    }
    phases.push(await measure("bundled", defaultMaxOps, chain, service, requests.next(users, BUNDLED_OPS), trace));
    await service.stop();
    service = undefined;

    service = await startUserOpsService(chain, { WORKERS: String(WORKERS), TX_MAX_OPS_PER_BUNDLE: "1" }, options);
    await measure("warm-up", 1, chain, service, requests.next(users, WARMUP_UNBUNDLED));
    phases.push(await measure("one op per bundle", 1, chain, service, requests.next(users, UNBUNDLED_OPS), trace));
  } finally {
    process.removeListener("SIGINT", stopOnSignal);
    await service?.stop();
    await trace?.close();
    await chain.close();
    removeToken();
  }

  const [bundled, unbundled] = phases as [Phase, Phase];
  const ratio = bundled.run.opsPerSecond / unbundled.run.opsPerSecond;
  const verdict = (met: boolean) => (met ? "PASS" : "**FAIL**");
  console.log(
    [
      "## UserOperations per second, submission to inclusion",
      "",
      machineLine(),
      "",
      `Fresh in-process Hardhat chain (automine); the service in a child process (${WORKERS} process(es), built-in ` +
        `bundler, default settings but TX_MAX_OPS_PER_BUNDLE; ${KEYS === "hsm" ? "every key in a SoftHSM2 token, signed through PKCS#11" : "raw keys in its environment, signed in the process"}); POST /v1/kernel/tx offered at ${int(RATE)} ` +
        `requests/s with at most ${CONCURRENCY} in flight, each one call of TestTarget.record (value 0) from an ` +
        `already deployed wallet, ${USERS} distinct tel: users in turn; GET ?wait=true until final. Every request ` +
        "ended included with success, and the relayer's handleOps transactions carry exactly the requests. " +
        "Ops/s = requests / (last inclusion − first submission); latency is submission → included.",
      "",
      ...resultTable(phases),
      "",
      "| Target | Measured | Met |",
      "| --- | --: | --- |",
      `| ≥ ${TARGET_OPS_PER_SECOND} ops/s with bundling | ${int(bundled.run.opsPerSecond)} ops/s | ` +
        `${verdict(bundled.run.opsPerSecond >= TARGET_OPS_PER_SECOND)} |`,
      `| bundled ≥ ${TARGET_RATIO}× one op per bundle | ${ratio.toFixed(1)}× | ${verdict(ratio >= TARGET_RATIO)} |`,
      ...phases.flatMap(rpcTable),
    ].join("\n"),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
