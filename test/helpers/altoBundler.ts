import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { JsonRpcProvider, Wallet, parseEther } from "ethers";
import { ENTRY_POINT_V07 } from "../../scripts/deployment/entryPoint";
import { freePort } from "../../scripts/localStack/anvilNode";
import { stopChild } from "../../scripts/processes/stopChild";

/** Where `.ci/run` installs alto, apart from the project's own packages (docs/dependencies.md). */
const ALTO_PACKAGE = path.resolve(__dirname, "../../tools/alto/node_modules/@pimlico/alto");
/** The one version whose safe mode handles EntryPoint v0.7 (0.0.20 cannot decode its `DelegateAndRevert` error). */
const ALTO_VERSION = "0.0.18";
/** Alto deploys its simulations contract, checks the EntryPoint and the gas prices before it listens. */
const START_TIMEOUT_MS = 60_000;
/** Tries of a free port: another process may take the one found before alto binds it, seconds later. */
const PORT_ATTEMPTS = 3;
/** How much of alto's log is kept to show when something fails. */
const LOG_KEPT_CHARS = 30_000;
/** What each of alto's keys (the one sending bundles, the one deploying its simulations contract) is given. */
const KEY_FUNDING = parseEther("100");

/** A running alto bundler: its JSON-RPC URL, its log so far (to show when a test fails), and how to stop it. */
export interface AltoBundler {
  readonly url: string;
  /** Alto's output so far (its tail), colours removed. */
  log(): string;
  stop(): Promise<void>;
}

/** What the bundler is started with besides the chain's URL. */
export interface AltoOptions {
  /** The EntryPoint it serves (default: v0.7's canonical address, where the project's deployment places it). */
  readonly entryPoint?: string;
  /** The least stake (whole ether) and unstake delay (seconds) it counts as staked (default 1 and 1). */
  readonly minStake?: { readonly ether: number; readonly unstakeDelaySeconds: number };
}

/**
 * Starts `@pimlico/alto` 0.0.18 in safe mode against the chain at `rpcUrl` (anvil: alto traces validation with
 * `debug_traceCall` and a JS tracer, which Hardhat's node lacks), on a free port of 127.0.0.1. Safe mode enforces
 * ERC-7562 in full, as a public bundler does; an entity counts as staked from `minStake` (default 1 ether locked for
 * 1 s; a chain's usual minimums are higher). Its executor and utility keys are new ones, funded by the chain's last dev account.
 * Resolves once it answers eth_supportedEntryPoints; rejects with its log if it exits or stays silent first.
 */
export async function startAltoBundler(rpcUrl: string, options: AltoOptions = {}): Promise<AltoBundler> {
  const cli = altoCli();
  const executor = Wallet.createRandom();
  const utility = Wallet.createRandom();
  await fund(rpcUrl, [executor.address, utility.address]);
  const args = [
    cli,
    ...["--entrypoints", options.entryPoint ?? ENTRY_POINT_V07],
    ...["--rpc-url", rpcUrl],
    ...["--executor-private-keys", executor.privateKey],
    ...["--utility-private-key", utility.privateKey],
    ...["--safe-mode", "true"],
    ...["--deploy-simulations-contract", "true"],
    ...["--min-entity-stake", String(options.minStake?.ether ?? 1)],
    ...["--min-entity-unstake-delay", String(options.minStake?.unstakeDelaySeconds ?? 1)],
    // Anvil mines each transaction at once: a short poll sees a bundle's block without waiting a second.
    ...["--polling-interval", "100"],
    // The funded keys are all it needs: no refills and no balance monitor sending or polling in the background.
    ...["--refilling-wallets", "false", "--utility-wallet-monitor", "false"],
    // At info, alto logs every node answer in full; its own modules' news (refusals, bundles) is kept.
    ...["--public-client-log-level", "warn", "--wallet-client-log-level", "warn"],
  ];
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(args, await freePort("127.0.0.1"));
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** Alto's command-line entry, or an error saying how to install it. */
function altoCli(): string {
  const manifest = path.join(ALTO_PACKAGE, "package.json");
  if (!existsSync(manifest)) {
    throw new Error(
      `alto is not installed: run \`npm ci --prefix tools/alto\` (it lives apart from the project's packages)`,
    );
  }
  const { version, bin } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string; bin: { alto: string } };
  if (version !== ALTO_VERSION)
    throw new Error(`tools/alto holds alto ${version}, not ${ALTO_VERSION}: run npm ci there`);
  return path.join(ALTO_PACKAGE, bin.alto);
}

/** Gives each of `addresses` KEY_FUNDING from the node's last unlocked dev account. */
async function fund(rpcUrl: string, addresses: readonly string[]): Promise<void> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, batchMaxCount: 1 });
  try {
    const accounts = (await provider.send("eth_accounts", [])) as string[];
    const funder = await provider.getSigner(accounts[accounts.length - 1]);
    for (const to of addresses) await (await funder.sendTransaction({ to, value: KEY_FUNDING })).wait();
  } finally {
    provider.destroy();
  }
}

/** Alto could not listen on the port it was given: another process took it first. */
class PortTaken extends Error {}

async function launch(args: readonly string[], port: number): Promise<AltoBundler> {
  const child = spawn(process.execPath, [...args, "--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString("utf8")).slice(-LOG_KEPT_CHARS));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  // Pino's pretty output is coloured even into a pipe.
  const log = () => output.replace(/\x1b\[[0-9;]*m/g, "");
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async () => {
    await stopChild(child);
    process.removeListener("exit", killOnExit);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(child, url, log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, log, stop };
}

/** Waits until alto answers eth_supportedEntryPoints; rejects with its log if it exits first or stays silent. */
async function waitReady(child: ChildProcess, url: string, log: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_supportedEntryPoints", params: [] });
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      if (/EADDRINUSE/.test(log())) throw new PortTaken(`alto could not listen on ${url}`);
      throw new Error(`alto exited before serving ${url} (code ${child.exitCode}); its log:\n${log()}`);
    }
    try {
      const answer = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      if (answer.ok && Array.isArray(((await answer.json()) as { result?: unknown }).result)) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error(`alto not serving ${url} within ${START_TIMEOUT_MS} ms; its log:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
