import { z } from "zod";

/** A token of a chain's dust list: `sweepable` if the operator sweeps it, else `unsupported`. */
export interface DustToken {
  readonly chain: string;
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly listing: "sweepable" | "unsupported";
}

/** Where an asset's USD price comes from: a fixed price the admin sets, or a Chainlink AggregatorV3 feed. */
export type DustPriceSource =
  | { readonly chain: string; readonly asset: string; readonly usd: number; readonly updatedAt: string }
  | { readonly chain: string; readonly asset: string; readonly feed: string; readonly updatedAt: string };

/** `asset` of the chain's native coin in the price table. */
export const NATIVE_ASSET = "native";

/** A dust order: a maker's approved tokens waiting to be swept (`open`), swept, or cancelled. */
export interface DustOrder {
  readonly id: string;
  readonly chain: string;
  readonly maker: string;
  readonly token: string;
  /** Raw token units. */
  readonly amount: bigint;
  /** The maker's approval transaction. */
  readonly tx: string;
  readonly createdAt: string;
  readonly status: "open" | "swept" | "cancelled";
  readonly sweep?: {
    readonly tx: string;
    readonly blockNumber: number;
    /** Wei received. */
    readonly ethAmount: bigint;
    readonly usdValue: number;
    readonly ethPrice: number;
    readonly at: string;
  };
}

/** Symbols: what a token list shows, printable and short. */
export const DustSymbol = z.string().regex(/^[\x21-\x7e]{1,16}$/, "1 to 16 visible ASCII characters");
