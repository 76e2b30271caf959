import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { JsonRpcProvider } from "ethers";
import type { ChainNode } from "./chainNode";
import { stopChild } from "../processes/stopChild";

const START_TIMEOUT_MS = 15_000;
/** Tries of a free port: another process may take the one found before anvil binds it. */
const PORT_ATTEMPTS = 3;

/** The anvil binary of this platform's package (called directly: the @foundry-rs/anvil wrapper needs a postinstall). */
export function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`anvil: ${pkg} is not installed (it comes with the dev dependency @foundry-rs/anvil)`);
  }
  return path.join(dir, "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

/** Where anvil keeps its chain across restarts: the state it starts from (if any) and the file it saves on exit. */
export interface AnvilState {
  /** A state anvil saved before (`--load-state`): its blocks, receipts and accounts; unset: a new chain. */
  readonly load?: string;
  /** Where anvil writes its whole state when it stops on SIGTERM (`--dump-state`). */
  readonly dump: string;
}

/**
 * Starts anvil in its own process on `host:port` (0 = a free port). Anvil carries the deterministic deployment
 * proxy and Hardhat's dev accounts (same mnemonic, chain id 31337) by default, and answers the `hardhat_*` and
 * `evm_*` methods the stack uses as aliases of its `anvil_*` ones. It automines, with anvil's 30M block gas limit
 * (any bundle the service builds fits: it caps them at 15M) and EIP-170's code size limit (every contract fits).
 * The process dies with this one. With `state`, it starts from a saved state and saves its own when it stops; it then
 * runs in its own process group, so a Ctrl-C in the terminal reaches this process only, which stops the service
 * before the chain (the chain saved last holds everything the records say).
 */
export async function startAnvilNode(host: string, port: number, state?: AnvilState): Promise<ChainNode> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(host, port === 0 ? await freePort(host) : port, state);
    } catch (error) {
      if (port !== 0 || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

async function launch(host: string, port: number, state: AnvilState | undefined): Promise<ChainNode> {
  const args = ["--host", host, "--port", String(port), "--silent"];
  if (state?.load) args.push("--load-state", state.load);
  if (state) args.push("--dump-state", state.dump);
  const child = spawn(anvilBinary(), args, {
    stdio: ["ignore", "ignore", "pipe"],
    detached: state !== undefined && process.platform !== "win32",
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2000)));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async () => {
    await stopChild(child);
    process.removeListener("exit", killOnExit);
  };
  const rpcUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  try {
    await waitReady(child, rpcUrl, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  // No response cache (the stack reads state right after writing it) and no batching: ethers would hold every
  // call 10 ms to batch it.
  const provider = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, batchMaxCount: 1, pollingInterval: 100 });
  return {
    kind: "anvil",
    rpcUrl,
    provider,
    pid: child.pid!,
    close: async () => {
      provider.destroy();
      await stop();
    },
  };
}

/** A port free on `host` now (the kernel's pick for port 0). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until anvil answers eth_chainId; rejects if it exits first or stays silent. */
async function waitReady(child: ChildProcess, rpcUrl: string, stderr: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`anvil exited before serving ${rpcUrl}: ${stderr().trim() || `code ${child.exitCode}`}`);
    }
    try {
      const answer = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      if (answer.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`anvil not serving ${rpcUrl} within ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
