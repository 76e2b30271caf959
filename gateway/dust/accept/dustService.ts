import { formatEther, formatUnits, getAddress } from "ethers";
import type { ChainCapabilitiesTable } from "../../accept/chainCapabilities";
import { dustChain } from "../../accept/chainChecks";
import { type DustOrder, type DustToken, NATIVE_ASSET } from "../dustModel";
import { type DustRepository } from "../dustRepository";
import type { LastTransferCache } from "../chainReads";
import { readPortfolio } from "../chainReads";
import { feedsOf, priceBook } from "../prices";
import type { AdmitDustView } from "../viewLimits";

/** What the dust interface reads from. */
export interface DustDeps {
  readonly repository: DustRepository;
  /** What each chain can do here: the dust interface reads a chain it has an RPC client of. */
  readonly capabilities: ChainCapabilitiesTable;
  /** The chain of GET /api/{address} when the request names none. */
  readonly defaultChain: string;
  readonly lookbackBlocks: number;
  readonly priceMaxAgeSeconds: number;
  readonly multicall3: string;
  readonly lastTransfers: LastTransferCache;
  readonly clock: () => Date;
  /** Admits a wallet view's chain reads (per address and per chain) or throws 429 RATE_LIMITED. */
  readonly admitView: AdmitDustView;
}

/** A page of a list. */
export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/**
 * GET /api/{address} (spec §2.8 wallet information): the listed tokens the wallet holds, with balances, feeds
 * and the native balance read in one Multicall3 call; each with its USD and ETH value, status (`approved` while
 * the wallet has an open order for it, `sweepable` if listed so and priced, else `unsupported`) and the sweeping
 * value of the sweepable ones; and the wallet's swept orders.
 */
export async function walletInformation(
  address: string,
  chainName: string | undefined,
  clientIp: string | undefined,
  deps: DustDeps,
) {
  const wallet = getAddress(address);
  const chain = chainName ?? deps.defaultChain;
  const client = dustChain(chain, deps.capabilities);
  // Counted once the chain is known to be one of ours: a made-up name neither reads anything nor keys a counter.
  await deps.admitView(clientIp, chain);
  const [tokens, sources, open, swept] = await Promise.all([
    deps.repository.tokens(chain),
    deps.repository.prices(chain),
    deps.repository.orders({ status: "open", maker: wallet, limit: 1000, offset: 0 }),
    deps.repository.orders({ status: "swept", maker: wallet, limit: 1000, offset: 0 }),
  ]);
  const reads = await readPortfolio(
    client.provider,
    wallet,
    tokens.map((t) => t.address),
    feedsOf(sources),
    deps.multicall3,
  );
  const prices = priceBook(sources, reads.feeds, deps.clock(), deps.priceMaxAgeSeconds);
  const ethUsd = prices.usd(NATIVE_ASSET);
  const approved = new Set(open.filter((o) => o.chain === chain).map((o) => getAddress(o.token)));
  const held = tokens.filter((t) => (reads.tokens.get(getAddress(t.address))?.balance ?? 0n) > 0n);
  const portfolio = await Promise.all(
    held.map(async (token) => {
      const read = reads.tokens.get(getAddress(token.address))!;
      // The chain's decimals win over the list's: they are what the balance is counted in.
      const amount = Number(formatUnits(read.balance, read.decimals));
      const rate = prices.usd(token.address);
      const usd = rate === undefined ? 0 : amount * rate;
      const eth = rate === undefined || !ethUsd ? 0 : usd / ethUsd;
      const status = tokenStatus(token, rate, approved);
      const last = await deps.lastTransfers.get(client.provider, chain, token.address, wallet, deps.lookbackBlocks);
      return {
        token: { symbol: token.symbol, contract_address: getAddress(token.address), status },
        balance: { amount, asset_type: "erc20", usd_value: usd, eth_value: eth },
        quote_rate: rate ?? 0,
        last_transferred_at: last ? last.timestamp.toISOString() : null,
        sweeping_value: status === "sweepable" ? { usd, eth } : { usd: 0, eth: 0 },
      };
    }),
  );
  const symbols = await tokenIndex(swept, deps.repository);
  return {
    address: wallet,
    portfolio,
    past_orders: swept.map((order) => pastOrder(order, symbols)),
  };
}

/** `approved` while an open order waits, `sweepable` if the operator sweeps it and it has a price. */
function tokenStatus(token: DustToken, rate: number | undefined, approved: ReadonlySet<string>) {
  if (token.listing === "unsupported" || rate === undefined) return "unsupported" as const;
  return approved.has(getAddress(token.address)) ? ("approved" as const) : ("sweepable" as const);
}

/** GET /api/all-orders: every open and swept order, newest first. */
export async function allOrders(page: Page, deps: DustDeps) {
  const orders = await deps.repository.orders(page);
  const tokens = await tokenIndex(orders, deps.repository);
  return orders.map((order) => {
    const token = tokens.get(tokenKey(order.chain, order.token));
    return {
      balance: formatUnits(order.amount, token?.decimals ?? 18),
      symbol: token?.symbol ?? "",
      maker: order.maker,
      time: order.createdAt,
      tx: order.tx,
    };
  });
}

/** GET /api/orders: the open orders, newest first. */
export async function openOrders(page: Page, deps: DustDeps) {
  const orders = await deps.repository.orders({ ...page, status: "open" });
  const tokens = await tokenIndex(orders, deps.repository);
  return orders.map((order) => {
    const token = tokens.get(tokenKey(order.chain, order.token));
    return {
      balance: formatUnits(order.amount, token?.decimals ?? 18),
      token: [token?.symbol ?? "", getAddress(order.token)] as [string, string],
      maker: order.maker,
      time: order.createdAt,
      tx: order.tx,
    };
  });
}

function pastOrder(order: DustOrder, tokens: ReadonlyMap<string, DustToken>) {
  const sweep = order.sweep!;
  const token = tokens.get(tokenKey(order.chain, order.token));
  return {
    blockNum: sweep.blockNumber,
    time: sweep.at,
    erc20: {
      symbol: token?.symbol ?? "",
      address: getAddress(order.token),
      amount: formatUnits(order.amount, token?.decimals ?? 18),
    },
    hash: sweep.tx,
    value: { eth: formatEther(sweep.ethAmount), usd: sweep.usdValue },
    ethPrice: sweep.ethPrice,
  };
}

const tokenKey = (chain: string, token: string) => `${chain}:${getAddress(token)}`;

/** The listed tokens of the chains `orders` are on, by chain and address. */
async function tokenIndex(orders: readonly DustOrder[], repository: DustRepository): Promise<Map<string, DustToken>> {
  const index = new Map<string, DustToken>();
  for (const chain of new Set(orders.map((o) => o.chain))) {
    for (const token of await repository.tokens(chain)) index.set(tokenKey(chain, token.address), token);
  }
  return index;
}
