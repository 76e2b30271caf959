/**
 * The UserOperation bench on an interval-mined chain: anvil mining a block every few seconds (as L2s do), requests
 * offered at a series of rates, and how many blocks after its acceptance each request was included.
 */
import { toQuantity } from "ethers";
import { KeepAliveClient } from "./keepAliveClient";
import { type Phase, measure } from "./userOpsPhase";
import { type RpcTrace, startRpcTrace } from "./userOpsRpcTrace";
import { percentile, type UserOpsRun } from "./userOpsLoad";
import { type ServiceOptions, type UserOpsService, startUserOpsChain, startUserOpsService } from "./userOpsStack";
import { Requests, makeUsers } from "./userOpsUsers";

/** How the sweep runs. */
export interface BlockSweepSettings {
  /** Seconds between blocks. */
  readonly blockTime: number;
  /** Offered requests/s, one run each, in this order. */
  readonly rates: readonly number[];
  /** Seconds each rate is offered for (fewer if the backlog says the rate is not sustained). */
  readonly seconds: number;
  /** Distinct wallets, requests round-robin over them: enough that a block's requests come from distinct wallets. */
  readonly users: number;
  readonly concurrency: number;
  readonly pollers: number;
  /** Settings of the service besides the defaults, e.g. TX_MAX_OPS_PER_BUNDLE. */
  readonly env: Readonly<Record<string, string>>;
  readonly service: ServiceOptions;
  /** The service's bundle size (its default unless `env` sets it), for the report. */
  readonly maxOpsPerBundle: number;
  /** Also time the service's chain calls by method, per rate. */
  readonly traceRpc?: boolean;
}

/** Inclusion in blocks after acceptance: receipt's block − the block the chain was at when the 202 arrived. */
export interface BlockLatency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** One offered rate's result. */
export interface BlockRate {
  readonly phase: Phase;
  readonly blocks: BlockLatency;
  /** Every request of the rate's window sent (no runaway backlog) and p99 ≤ 2 blocks. */
  readonly sustained: boolean;
}

/** Wallets deployed per warm-up wave (automine): a bundle of first operations stays under the bundle gas cap. */
const WARMUP_WAVE = 32;
/**
 * Sending stops once this many blocks' worth of offered requests wait (accepted, not yet seen final): by Little's
 * law a pipeline keeping p99 within 2 blocks holds about 2 blocks' worth, so a rate that piles up 5 is not sustained,
 * and draining its backlog would only cost minutes.
 */
export const BACKLOG_BLOCKS = 5;
const TIMEOUT_MS = 300_000;
/**
 * The interval-mined chain's block gas limit, like a real 2-s L2's (Base's is well above 100M): anvil fills a block
 * by its transactions' gas limits, so at its default 30M two 15M-gas bundles would already take a whole block, and
 * bundles pending at once would wait for blocks the chain being modelled would not make them wait for.
 */
export const BLOCK_GAS_LIMIT = 150_000_000;
export const MAX_BLOCKS_P99 = 2;

/** Percentiles of blocks after acceptance over a run's requests. */
export function blockLatency(run: UserOpsRun): BlockLatency {
  const blocks = run.ops.map((o) => o.blockNumber - o.acceptedBlock!).sort((a, b) => a - b);
  return { p50: percentile(blocks, 50), p99: percentile(blocks, 99), max: blocks.at(-1) ?? NaN };
}

/**
 * Deploys on a fresh anvil (automine), deploys every wallet, then switches anvil to interval mining (its
 * `--block-time`: set-up would otherwise wait a block per transaction) and offers each rate in turn to one service.
 */
export async function blockSweep(settings: BlockSweepSettings): Promise<BlockRate[]> {
  const users = await makeUsers(settings.users);
  const chain = await startUserOpsChain({ kind: "anvil" });
  let service: UserOpsService | undefined;
  let trace: RpcTrace | undefined;
  const head = new KeepAliveClient(chain.node.rpcUrl, settings.concurrency);
  try {
    if (settings.traceRpc) trace = await startRpcTrace(chain.node.rpcUrl);
    service = await startUserOpsService(chain, settings.env, {
      ...settings.service,
      ...(trace ? { rpcUrl: trace.url } : {}),
    });
    const requests = new Requests(chain.target);
    const warmLoad = {
      ratePerSecond: 1_000,
      concurrency: settings.concurrency,
      pollers: settings.pollers,
      timeoutMs: TIMEOUT_MS,
    };
    for (let first = 0; first < users.length; first += WARMUP_WAVE) {
      const wave = users.slice(first, first + WARMUP_WAVE);
      const warm = { label: "warm-up", maxOpsPerBundle: settings.maxOpsPerBundle, load: warmLoad };
      await measure(warm, chain, service, requests.next(wave, wave.length));
    }
    await chain.node.provider.send("evm_setBlockGasLimit", [toQuantity(BLOCK_GAS_LIMIT)]);
    // anvil_setIntervalMining takes seconds (Hardhat's evm_setIntervalMining takes milliseconds) and ends automine.
    await chain.node.provider.send("anvil_setIntervalMining", [settings.blockTime]);
    // Read as the 202 arrives, over a kept-alive connection: a block mined meanwhile would be counted against us.
    const headAtAccept = async () => {
      const body = { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] };
      return Number((JSON.parse((await head.send("POST", "/", body)).text) as { result: string }).result);
    };
    const results: BlockRate[] = [];
    for (const rate of settings.rates) {
      const backlogLimit = rate * settings.blockTime * BACKLOG_BLOCKS;
      const phase = await measure(
        {
          label: `${rate} requests/s`,
          maxOpsPerBundle: settings.maxOpsPerBundle,
          load: {
            ratePerSecond: rate,
            concurrency: settings.concurrency,
            pollers: settings.pollers,
            timeoutMs: TIMEOUT_MS,
            headAtAccept,
            stopWhen: (backlog) => backlog > backlogLimit,
          },
          ...(trace ? { trace } : {}),
        },
        chain,
        service,
        requests.next(users, Math.round(rate * settings.seconds)),
      );
      const blocks = blockLatency(phase.run);
      results.push({ phase, blocks, sustained: phase.run.unsent === 0 && blocks.p99 <= MAX_BLOCKS_P99 });
    }
    return results;
  } finally {
    head.close();
    await service?.stop();
    await trace?.close();
    await chain.close();
  }
}
