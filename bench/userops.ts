/**
 * Sustained UserOperations per second from API submission to inclusion on a local chain: POST /v1/kernel/tx at a
 * fixed offered rate, each request one cheap call (TestTarget.record, value 0) from one of many wallets, until every
 * request is `included` with success; once with bundling (the default TX_MAX_OPS_PER_BUNDLE) and once with one
 * operation per bundle; on a fresh in-process Hardhat chain and on a fresh anvil (its own process), both automining.
 * Then, on anvil mining a block every 2 s, inclusion in blocks after acceptance at a series of offered rates. The
 * service runs in a child process, so neither the chain nor the load generator shares its event loop; the CPU each
 * process spent is read from /proc. The custody signatures each scenario made are counted from the service's audit log
 * and checked against the bundles on chain (bench/lib/userOpsCustody.ts).
 *
 *   npx hardhat run bench/userops.ts
 *
 * `hardhat run` passes no script arguments, so the settings are environment variables (defaults shown):
 *   USEROPS_CHAINS=hardhat,anvil                 the automining chains, in turn
 *   USEROPS_BUNDLED=1000|2000 USEROPS_UNBUNDLED=200   requests measured per scenario (bundled: Hardhat|anvil)
 *   USEROPS_RATE=500|1500 USEROPS_CONCURRENCY=32 offered requests/s (Hardhat|anvil), most POSTs in flight
 *   USEROPS_BLOCK_RATES=50,100,200,300,500,750,1000  offered rates on the interval-mined anvil ("none": skip it)
 *   USEROPS_BLOCK_SECONDS=30 USEROPS_BLOCK_TIME=2 USEROPS_BLOCK_USERS=1024   seconds per rate, block time, wallets
 *   USEROPS_BLOCK_MAX_OPS=                       TX_MAX_OPS_PER_BUNDLE on the interval-mined chain (unset: default)
 *   WORKERS=1                                    service processes (the transaction worker runs in one of them)
 *   USEROPS_KEYS=process,hsm                     where the service's keys are, each automine scenario run under
 *                                                each in turn: `process` (raw keys in its environment) and `hsm`
 *                                                (a SoftHSM2 token, signed through PKCS#11); the sweep uses the first
 *   USEROPS_WALLET_CODE=2.1                      the wallets' code, each automine scenario run on each: `2.1` (the
 *                                                deployment as `npm run deploy` makes it now: new wallets through the
 *                                                creator, one custody root per bundle) and/or `2.0.0` (as before: a
 *                                                sponsorship and a wallet signature per operation); the sweep runs 2.1
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
import { type ChainNodeKind, chainNodeKind } from "../scripts/localStack/chainNode";
import { type CustodyToken, createCustodyToken } from "../scripts/softhsm/custodyToken";
import { blockSweep } from "./lib/userOpsBlocks";
import { type Phase, type PhaseSettings, measure } from "./lib/userOpsPhase";
import { type RpcTrace, startRpcTrace } from "./lib/userOpsRpcTrace";
import {
  BENCH_KEYS,
  BENCH_TOKEN_SECRET,
  type KeysMode,
  type ServiceOptions,
  type UserOpsService,
  type WalletCode,
  parseWalletCode,
  startUserOpsChain,
  startUserOpsService,
} from "./lib/userOpsStack";
import { type ReportSettings, userOpsReport } from "./lib/userOpsReport";
import { Requests, makeUsers } from "./lib/userOpsUsers";

/** A positive integer setting from the environment, or `fallback`. */
function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** A comma-separated list setting, or `fallback`; "none" is the empty list. */
function envList(name: string, fallback: string): string[] {
  const raw = process.env[name] || fallback;
  return raw === "none" ? [] : raw.split(",").map((item) => item.trim());
}

const CHAINS = envList("USEROPS_CHAINS", "hardhat,anvil").map(chainNodeKind);
/** Per chain: anvil's bundled target (≥ 500 ops/s over ≥ 2,000 requests) needs more requests, offered faster. */
const BUNDLED_OPS = { hardhat: envInt("USEROPS_BUNDLED", 1_000), anvil: envInt("USEROPS_BUNDLED", 2_000) };
const RATE = { hardhat: envInt("USEROPS_RATE", 500), anvil: envInt("USEROPS_RATE", 1_500) };
const UNBUNDLED_OPS = envInt("USEROPS_UNBUNDLED", 200);
const CONCURRENCY = envInt("USEROPS_CONCURRENCY", 32);
const BLOCK_RATES = envList("USEROPS_BLOCK_RATES", "50,100,200,300,500,750,1000").map((rate) => {
  const value = Number(rate);
  if (!Number.isInteger(value) || value <= 0) throw new Error("USEROPS_BLOCK_RATES must be positive integers");
  return value;
});
const BLOCK_SECONDS = envInt("USEROPS_BLOCK_SECONDS", 30);
const BLOCK_TIME = envInt("USEROPS_BLOCK_TIME", 2);
const BLOCK_USERS = envInt("USEROPS_BLOCK_USERS", 1_024);
const BLOCK_MAX_OPS = process.env.USEROPS_BLOCK_MAX_OPS || undefined;
const WORKERS = envInt("WORKERS", 1);
const KEYS: KeysMode[] = envList("USEROPS_KEYS", "process,hsm").map((keys) => {
  if (keys !== "process" && keys !== "hsm") throw new Error("USEROPS_KEYS must list process and/or hsm");
  return keys;
});
const WALLET_CODES = envList("USEROPS_WALLET_CODE", "2.1").map(parseWalletCode);
if (KEYS.length === 0 || WALLET_CODES.length === 0)
  throw new Error("USEROPS_KEYS and USEROPS_WALLET_CODE list one at least");
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

/** The service's default bundle size, read from its configuration rather than restated here. */
const DEFAULT_MAX_OPS = loadConfig({
  TEST_DEPLOYMENT: "true",
  AUTH_TOKEN_SECRET: BENCH_TOKEN_SECRET,
  CONTRACT_KERNEL_FACTORY: "0x0000000000000000000000000000000000000001",
  CONTRACT_BASE_FACTORY: "0x0000000000000000000000000000000000000002",
}).transactions.maxOpsPerBundle;

/** Bundled, then one op per bundle, on a fresh automining chain of `kind` whose wallets run `walletCode`. */
async function automine(kind: ChainNodeKind, walletCode: WalletCode, options: ServiceOptions): Promise<Phase[]> {
  const users = await makeUsers(USERS);
  const chain = await startUserOpsChain({ kind, walletCode });
  let service: UserOpsService | undefined;
  let trace: RpcTrace | undefined;
  const settings = (label: string, maxOpsPerBundle: number, measured = false): PhaseSettings => ({
    label,
    maxOpsPerBundle,
    load: { ratePerSecond: RATE[kind], concurrency: CONCURRENCY, pollers: POLLERS, timeoutMs: RUN_TIMEOUT_MS },
    ...(measured && trace ? { trace } : {}),
  });
  try {
    if (process.env.USEROPS_RPC_TRACE === "1") trace = await startRpcTrace(chain.node.rpcUrl);
    const serviceOptions = { ...options, ...(trace ? { rpcUrl: trace.url } : {}) };
    const requests = new Requests(chain.target);
    service = await startUserOpsService(chain, { WORKERS: String(WORKERS) }, serviceOptions);
    // Warm-up: one request per user, which deploys every wallet, so the measured operations are plain calls.
    for (let first = 0; first < USERS; first += WARMUP_WAVE) {
      const wave = users.slice(first, first + WARMUP_WAVE);
      await measure(settings("warm-up", DEFAULT_MAX_OPS), chain, service, requests.next(wave, wave.length));
    }
    const bundled = settings("bundled", DEFAULT_MAX_OPS, true);
    const phases = [await measure(bundled, chain, service, requests.next(users, BUNDLED_OPS[kind]))];
    await service.stop();
    service = undefined;

    const single = { WORKERS: String(WORKERS), TX_MAX_OPS_PER_BUNDLE: "1" };
    service = await startUserOpsService(chain, single, serviceOptions);
    await measure(settings("warm-up", 1), chain, service, requests.next(users, WARMUP_UNBUNDLED));
    const unbundled = settings("one op per bundle", 1, true);
    phases.push(await measure(unbundled, chain, service, requests.next(users, UNBUNDLED_OPS)));
    return phases;
  } finally {
    await service?.stop();
    await trace?.close();
    await chain.close();
  }
}

async function main(): Promise<void> {
  const tokenDir = KEYS.includes("hsm") ? mkdtempSync(path.join(tmpdir(), "idwallet-userops-hsm-")) : undefined;
  // A normal exit on Ctrl-C, so the exit hooks of the service children and anvil kill them.
  process.once("SIGINT", () => {
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    // Every service of the run signs with the same token, made once (the dev keys are the same on every chain).
    const token: CustodyToken | undefined =
      tokenDir === undefined
        ? undefined
        : await createCustodyToken({ dir: tokenDir, token: "userops-bench", keys: BENCH_KEYS });
    const optionsOf = (keys: KeysMode): ServiceOptions => ({
      nodeArgs: PROFILE_ARGS,
      ...(keys === "hsm" && token ? { token } : {}),
    });
    const phases: Phase[] = [];
    // Raw keys and HSM one after the other on the same code, so their ratio is of the same minutes of the machine.
    for (const kind of CHAINS) {
      for (const code of WALLET_CODES) {
        for (const keys of KEYS) {
          console.error(`userops: ${kind}, wallet code ${code}, ${keys === "hsm" ? "HSM" : "raw"} keys`);
          phases.push(...(await automine(kind, code, optionsOf(keys))));
        }
      }
    }
    const rates =
      BLOCK_RATES.length === 0
        ? []
        : await blockSweep({
            blockTime: BLOCK_TIME,
            rates: BLOCK_RATES,
            seconds: BLOCK_SECONDS,
            users: BLOCK_USERS,
            concurrency: CONCURRENCY,
            pollers: POLLERS,
            env: { WORKERS: String(WORKERS), ...(BLOCK_MAX_OPS ? { TX_MAX_OPS_PER_BUNDLE: BLOCK_MAX_OPS } : {}) },
            service: optionsOf(KEYS[0]!),
            maxOpsPerBundle: BLOCK_MAX_OPS ? Number(BLOCK_MAX_OPS) : DEFAULT_MAX_OPS,
            traceRpc: process.env.USEROPS_RPC_TRACE === "1",
          });
    const settings: ReportSettings = {
      workers: WORKERS,
      sweepKeys: KEYS[0]!,
      concurrency: CONCURRENCY,
      users: USERS,
      blockTime: BLOCK_TIME,
      blockUsers: BLOCK_USERS,
      blockSeconds: BLOCK_SECONDS,
      ...(BLOCK_MAX_OPS ? { blockMaxOps: BLOCK_MAX_OPS } : {}),
    };
    console.log(userOpsReport(settings, phases, rates));
  } finally {
    if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
