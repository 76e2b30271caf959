import { getAddress, isAddress, isHexString, parseEther, parseUnits } from "ethers";
import { chainByName } from "../../gateway/chains/registry";
import { DustSymbol, NATIVE_ASSET } from "../../gateway/dust/dustModel";

/** Usage lines of the dust commands (part of the admin CLI's usage text). */
export const DUST_USAGE = `  dust tokens add <chain> <token> <symbol> [--decimals <n>] [--unsupported]
                                     list a token for the dust interface (sweepable unless --unsupported)
  dust tokens list <chain>           a chain's token list
  dust tokens remove <chain> <token>
  dust price set <chain> <token|native> (--usd <price> | --feed <aggregator>)
                                     a fixed USD price, or a Chainlink AggregatorV3 feed read live
  dust price list <chain>
  dust orders create <chain> <maker> <token> <amount> --tx <approval hash> [--time <iso>]
                                     an open order: <amount> whole tokens the maker approved for sweeping
  dust orders settle <order-id> --tx <sweep hash> --block <n> --eth <amount> --eth-price <usd> [--time <iso>]
                                     the order was swept for <amount> ETH at that ETH/USD price
  dust orders cancel <order-id>
  dust orders list [--open]`;

/** The options the dust commands read. */
export interface DustOptions {
  decimals?: string;
  unsupported?: boolean;
  usd?: string;
  feed?: string;
  tx?: string;
  block?: string;
  eth?: string;
  "eth-price"?: string;
  time?: string;
  open?: boolean;
}

/** The option names of the dust commands, with their parseArgs types. */
export const DUST_OPTIONS = {
  decimals: { type: "string" },
  unsupported: { type: "boolean" },
  usd: { type: "string" },
  feed: { type: "string" },
  tx: { type: "string" },
  block: { type: "string" },
  eth: { type: "string" },
  "eth-price": { type: "string" },
  time: { type: "string" },
  open: { type: "boolean" },
} as const;

/** One dust admin action, validated. */
export type DustCommand =
  | {
      readonly kind: "tokens add";
      readonly chain: string;
      readonly token: string;
      readonly symbol: string;
      readonly decimals: number;
      readonly listing: "sweepable" | "unsupported";
    }
  | { readonly kind: "tokens list"; readonly chain: string }
  | { readonly kind: "tokens remove"; readonly chain: string; readonly token: string }
  | {
      readonly kind: "price set";
      readonly chain: string;
      readonly asset: string;
      readonly source: { usd: number } | { feed: string };
    }
  | { readonly kind: "price list"; readonly chain: string }
  | {
      readonly kind: "orders create";
      readonly chain: string;
      readonly maker: string;
      readonly token: string;
      readonly amount: string;
      readonly tx: string;
      readonly time: string | undefined;
    }
  | {
      readonly kind: "orders settle";
      readonly id: string;
      readonly tx: string;
      readonly blockNumber: number;
      readonly ethAmount: bigint;
      readonly ethPrice: number;
      readonly time: string | undefined;
    }
  | { readonly kind: "orders cancel"; readonly id: string }
  | { readonly kind: "orders list"; readonly openOnly: boolean };

/** A command-line mistake, reported with the usage. */
export class DustUsageError extends Error {}

const chainArg = (value: string | undefined): string => {
  if (!value || !chainByName(value)) throw new DustUsageError(`unknown chain "${value ?? ""}"`);
  return value;
};
const addressArg = (value: string | undefined, what: string): string => {
  if (!value || !isAddress(value)) throw new DustUsageError(`${what} must be an address, got "${value ?? ""}"`);
  return getAddress(value.toLowerCase());
};
const hashArg = (value: string | undefined, what: string): string => {
  if (!value || !isHexString(value, 32)) throw new DustUsageError(`${what} must be a 32-byte 0x hash`);
  return value.toLowerCase();
};
const positiveNumber = (value: string | undefined, what: string): number => {
  const n = Number(value);
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || n <= 0) {
    throw new DustUsageError(`${what} must be a positive decimal number`);
  }
  return n;
};
const timeArg = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new DustUsageError(`--time must be an ISO 8601 time, got "${value}"`);
  return date.toISOString();
};

/** Reads `dust <area> <action> ...` into a command. */
export function parseDustCommand(
  area: string | undefined,
  action: string | undefined,
  rest: readonly string[],
  values: DustOptions,
): DustCommand {
  const line = `dust ${area ?? ""} ${action ?? ""}`.trim();
  const takes = (count: number): string[] => {
    if (rest.length !== count) throw new DustUsageError(`"${line}" takes ${count} argument(s), got ${rest.length}`);
    return [...rest];
  };
  switch (`${area} ${action}`) {
    case "tokens add": {
      const [chain, token, symbol] = takes(3);
      const parsedSymbol = DustSymbol.safeParse(symbol);
      if (!parsedSymbol.success) throw new DustUsageError(`symbol: ${parsedSymbol.error.issues[0]!.message}`);
      const decimals = values.decimals === undefined ? 18 : Number(values.decimals);
      if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36)
        throw new DustUsageError("--decimals must be 0 to 36");
      return {
        kind: "tokens add",
        chain: chainArg(chain),
        token: addressArg(token, "token"),
        symbol: parsedSymbol.data,
        decimals,
        listing: values.unsupported ? "unsupported" : "sweepable",
      };
    }
    case "tokens list":
      return { kind: "tokens list", chain: chainArg(takes(1)[0]) };
    case "tokens remove": {
      const [chain, token] = takes(2);
      return { kind: "tokens remove", chain: chainArg(chain), token: addressArg(token, "token") };
    }
    case "price set": {
      const [chain, asset] = takes(2);
      if ((values.usd === undefined) === (values.feed === undefined))
        throw new DustUsageError("give exactly one of --usd, --feed");
      const source =
        values.usd !== undefined
          ? { usd: positiveNumber(values.usd, "--usd") }
          : { feed: addressArg(values.feed, "--feed") };
      return {
        kind: "price set",
        chain: chainArg(chain),
        asset: asset === NATIVE_ASSET ? NATIVE_ASSET : addressArg(asset, "asset"),
        source,
      };
    }
    case "price list":
      return { kind: "price list", chain: chainArg(takes(1)[0]) };
    case "orders create": {
      const [chain, maker, token, amount] = takes(4);
      if (!amount || !/^\d+(\.\d+)?$/.test(amount))
        throw new DustUsageError("amount must be a positive decimal number of whole tokens");
      return {
        kind: "orders create",
        chain: chainArg(chain),
        maker: addressArg(maker, "maker"),
        token: addressArg(token, "token"),
        amount,
        tx: hashArg(values.tx, "--tx"),
        time: timeArg(values.time),
      };
    }
    case "orders settle": {
      const [id] = takes(1);
      const block = Number(values.block);
      if (!Number.isInteger(block) || block < 0) throw new DustUsageError("--block must be a block number");
      if (values.eth === undefined || !/^\d+(\.\d+)?$/.test(values.eth))
        throw new DustUsageError("--eth must be a decimal amount of ETH");
      return {
        kind: "orders settle",
        id: id!,
        tx: hashArg(values.tx, "--tx"),
        blockNumber: block,
        ethAmount: parseEther(values.eth),
        ethPrice: positiveNumber(values["eth-price"], "--eth-price"),
        time: timeArg(values.time),
      };
    }
    case "orders cancel":
      return { kind: "orders cancel", id: takes(1)[0]! };
    case "orders list":
      takes(0);
      return { kind: "orders list", openOnly: values.open ?? false };
    default:
      throw new DustUsageError(`unknown command "${line}"`);
  }
}

/** Raw units of `amount` whole tokens with `decimals`, or a usage error if it has more decimals than the token. */
export function tokenUnits(amount: string, decimals: number): bigint {
  try {
    const units = parseUnits(amount, decimals);
    if (units <= 0n) throw new DustUsageError("amount must be positive");
    return units;
  } catch (error) {
    if (error instanceof DustUsageError) throw error;
    throw new DustUsageError(`amount ${amount} has more decimals than the token's ${decimals}`);
  }
}
