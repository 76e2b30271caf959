import { Interface, type JsonRpcProvider, fromTwos, getAddress, id, makeError, toQuantity, zeroPadValue } from "ethers";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import { type Call3, MULTICALL3_ADDRESS, Multicall3Error, aggregate3, multicall3Interface } from "./multicall3";

/** What one round trip reads for a wallet's portfolio. */
export interface PortfolioReads {
  readonly nativeBalance: bigint;
  /** Per token contract (checksummed): balance and decimals, undefined if the token's calls failed. */
  readonly tokens: ReadonlyMap<string, { balance: bigint; decimals: number } | undefined>;
  /** Per feed contract: latest answer, its decimals and its updatedAt (unix seconds), undefined if the call failed. */
  readonly feeds: ReadonlyMap<string, { answer: bigint; decimals: number; updatedAt: number } | undefined>;
}

/** When a wallet last sent or received a token. */
export interface LastTransfer {
  readonly blockNumber: number;
  readonly timestamp: Date;
}

const readsInterface = new Interface([
  "function balanceOf(address owner) view returns (uint256)",
  // ERC-20 and Chainlink's AggregatorV3Interface both declare it: one selector serves tokens and feeds.
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);
const DECIMALS = readsInterface.encodeFunctionData("decimals");
const LATEST_ROUND = readsInterface.encodeFunctionData("latestRoundData");

const MAX_SAFE_SECONDS = BigInt(Number.MAX_SAFE_INTEGER);

type CallResult = { success: boolean; returnData: string } | undefined;

/**
 * The first `count` 32-byte words a call answered, or undefined if it failed or answered less (a call to an address
 * without code succeeds with no data). Words are cut by hand rather than ABI-decoded: a token may be any contract,
 * and a short or odd answer must make that token unknown, not fail the portfolio.
 */
function words(result: CallResult, count: number): bigint[] | undefined {
  if (!result?.success || !/^0x[0-9a-fA-F]*$/.test(result.returnData)) return undefined;
  if (result.returnData.length < 2 + 64 * count) return undefined;
  return Array.from({ length: count }, (_, i) => BigInt(`0x${result.returnData.slice(2 + 64 * i, 66 + 64 * i)}`));
}

/** A decimals() answer, if it is a uint8 as the standards say (a cut word could hold anything). */
function decimalsOf(result: CallResult): number | undefined {
  const [value] = words(result, 1) ?? [];
  return value !== undefined && value <= 255n ? Number(value) : undefined;
}

/**
 * Reads the wallet's native balance, each token's balance and decimals and each feed's latest round in one
 * aggregate3 call on the latest block, so that they all describe the same state. Any failing call is allowed: a
 * token or feed that fails or answers out of shape is undefined, since token lists name contracts nobody here runs.
 */
export async function readPortfolio(
  provider: JsonRpcProvider,
  wallet: string,
  tokens: readonly string[],
  feeds: readonly string[],
  multicall: string = MULTICALL3_ADDRESS,
): Promise<PortfolioReads> {
  const owner = getAddress(wallet);
  const tokenList = [...new Set(tokens.map((token) => getAddress(token)))];
  const feedList = [...new Set(feeds.map((feed) => getAddress(feed)))];
  const call = (target: string, callData: string): Call3 => ({ target, allowFailure: true, callData });
  const calls = [
    // Multicall3 reads the native balance itself, so it rides in the same batch.
    call(multicall, multicall3Interface.encodeFunctionData("getEthBalance", [owner])),
    ...tokenList.flatMap((token) => [
      call(token, readsInterface.encodeFunctionData("balanceOf", [owner])),
      call(token, DECIMALS),
    ]),
    ...feedList.flatMap((feed) => [call(feed, LATEST_ROUND), call(feed, DECIMALS)]),
  ];
  const results = await aggregate3(provider, calls, multicall);
  const [nativeBalance] = words(results[0], 1) ?? [];
  if (nativeBalance === undefined) throw new Multicall3Error(`getEthBalance failed at ${multicall}`);

  const tokenReads = new Map<string, { balance: bigint; decimals: number } | undefined>();
  tokenList.forEach((token, i) => {
    const [balance] = words(results[1 + 2 * i], 1) ?? [];
    const decimals = decimalsOf(results[2 + 2 * i]);
    tokenReads.set(token, balance !== undefined && decimals !== undefined ? { balance, decimals } : undefined);
  });
  const feedReads = new Map<string, { answer: bigint; decimals: number; updatedAt: number } | undefined>();
  feedList.forEach((feed, i) => {
    const at = 1 + 2 * tokenList.length + 2 * i;
    const [, answer, , updatedAt] = words(results[at], 5) ?? [];
    const decimals = decimalsOf(results[at + 1]);
    // updatedAt becomes a JS number: a value past 2^53 seconds is garbage, not a time.
    const valid =
      answer !== undefined && decimals !== undefined && updatedAt !== undefined && updatedAt <= MAX_SAFE_SECONDS;
    feedReads.set(feed, valid ? { answer: fromTwos(answer, 256), decimals, updatedAt: Number(updatedAt) } : undefined);
  });
  return { nativeBalance, tokens: tokenReads, feeds: feedReads };
}

/** ERC-20 Transfer(address indexed from, address indexed to, uint256 value). */
const TRANSFER_TOPIC = id("Transfer(address,address,uint256)");

const Quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/)
  .transform((value) => Number(value));
const RpcLogs = z.array(
  z.object({ blockNumber: Quantity, logIndex: Quantity, removed: z.boolean().optional() }).loose(),
);
const RpcBlock = z.object({ timestamp: Quantity }).loose();

/** Parses an RPC answer; a malformed one is the node's fault, reported as ethers reports undecodable data. */
function parseRpc<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw makeError(`the RPC answered a malformed ${what}`, "BAD_DATA", { value });
  return parsed.data;
}

/**
 * When the wallet last sent or received `token` (ERC-20 Transfer with the wallet as from or to), within the last
 * `lookbackBlocks` blocks; undefined if none.
 */
export async function lastTransfer(
  provider: JsonRpcProvider,
  token: string,
  wallet: string,
  lookbackBlocks: number,
): Promise<LastTransfer | undefined> {
  if (!Number.isSafeInteger(lookbackBlocks) || lookbackBlocks < 0) {
    throw new RangeError("lookbackBlocks must be a non-negative integer");
  }
  const latest = parseRpc(Quantity, await provider.send("eth_blockNumber", []), "block number");
  const walletTopic = zeroPadValue(getAddress(wallet), 32);
  // A filter's topic positions are ANDed, so "from or to the wallet" takes one query per position.
  const logs = (topics: (string | null)[]) =>
    provider.send("eth_getLogs", [
      {
        address: getAddress(token),
        fromBlock: toQuantity(Math.max(0, latest - lookbackBlocks)),
        toBlock: toQuantity(latest),
        topics,
      },
    ]);
  const [sent, received] = await Promise.all([
    logs([TRANSFER_TOPIC, walletTopic]),
    logs([TRANSFER_TOPIC, null, walletTopic]),
  ]);
  let last: { blockNumber: number; logIndex: number } | undefined;
  for (const log of [...parseRpc(RpcLogs, sent, "log list"), ...parseRpc(RpcLogs, received, "log list")]) {
    if (log.removed) continue;
    if (
      !last ||
      log.blockNumber > last.blockNumber ||
      (log.blockNumber === last.blockNumber && log.logIndex > last.logIndex)
    ) {
      last = log;
    }
  }
  if (!last) return undefined;
  const block = parseRpc(
    RpcBlock,
    await provider.send("eth_getBlockByNumber", [toQuantity(last.blockNumber), false]),
    "block",
  );
  return { blockNumber: last.blockNumber, timestamp: new Date(block.timestamp * 1000) };
}

/** Bounds and clock of a LastTransferCache. */
export interface LastTransferCacheOptions {
  /** Most answers kept; the least recently used go first. */
  readonly maxEntries?: number;
  readonly clock?: () => Date;
}

/**
 * lastTransfer answers per (chain, token, wallet, look-back), kept for a while: a portfolio view scans logs for every
 * token it lists, and the same wallet is viewed again and again. A scan under way is shared, a failed one forgotten.
 */
export class LastTransferCache {
  private readonly cache: LRUCache<string, { answer: Promise<LastTransfer | undefined>; expiresAtMs: number }>;
  private readonly clock: () => Date;

  /** Answers are served again for `ttlMs` milliseconds after the scan started. */
  constructor(
    private readonly ttlMs: number,
    options: LastTransferCacheOptions = {},
  ) {
    this.cache = new LRUCache({ max: options.maxEntries ?? 10_000 });
    this.clock = options.clock ?? (() => new Date());
  }

  /** lastTransfer of `token` for `wallet` on `chain`, from the cache while it is fresh. */
  get(
    provider: JsonRpcProvider,
    chain: string,
    token: string,
    wallet: string,
    lookbackBlocks: number,
  ): Promise<LastTransfer | undefined> {
    const key = `${chain}:${getAddress(token)}:${getAddress(wallet)}:${lookbackBlocks}`;
    const now = this.clock().getTime();
    const cached = this.cache.get(key);
    if (cached && now < cached.expiresAtMs) return cached.answer;
    const answer = lastTransfer(provider, token, wallet, lookbackBlocks);
    const entry = { answer, expiresAtMs: now + this.ttlMs };
    this.cache.set(key, entry);
    answer.catch(() => {
      if (this.cache.peek(key) === entry) this.cache.delete(key);
    });
    return answer;
  }
}
