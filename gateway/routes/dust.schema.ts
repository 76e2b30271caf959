import { z } from "zod";
import { Address } from "../chains/evmSchemas";

/** Largest page of the order lists. */
export const DUST_PAGE = { default: 100, max: 1000 };

/** GET /api/{address} path. */
export const DustAddressParams = z.object({ address: Address });

/** GET /api/{address} query. */
export const DustWalletQuery = z.object({
  chain: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "The chain to read (ERC-3770 short name); DUST_CHAIN if omitted" }),
});

/**
 * A whole number read from a query's text. Documented with its bounds as an integer: the generator would otherwise
 * call it nullable, since coercion turns null into 0, and a query value is never null.
 */
const queryInteger = (minimum: number, maximum: number, fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(minimum)
    .max(maximum)
    .default(fallback)
    .meta({ type: "integer", minimum, maximum, default: fallback });

/** Paging of GET /api/all-orders and /api/orders: the answer stays a plain array; `Link: rel="next"` when more. */
export const DustPageQuery = z.object({
  limit: queryInteger(1, DUST_PAGE.max, DUST_PAGE.default),
  offset: queryInteger(0, 1_000_000, 0),
});

const IsoTime = z.string().meta({ description: "ISO 8601 timestamp" });

/** Spec §2.8 portfolio item. */
export const PortfolioItem = z
  .object({
    token: z.object({
      symbol: z.string(),
      contract_address: z.string(),
      status: z.enum(["sweepable", "approved", "unsupported"]).meta({
        description:
          "sweepable: listed and priced, no order yet; approved: the wallet has an open order for it; " +
          "unsupported: not swept by the operator, or no usable price",
      }),
    }),
    balance: z.object({
      amount: z.number().meta({ description: "In whole tokens" }),
      asset_type: z.string().meta({ example: "erc20" }),
      usd_value: z.number(),
      eth_value: z.number(),
    }),
    quote_rate: z.number().meta({ description: "USD per whole token (0 without a price)" }),
    last_transferred_at: IsoTime.nullable().meta({
      description: "The token's last Transfer to or from the wallet within the look-back; null if none was found",
    }),
    sweeping_value: z
      .object({ usd: z.number(), eth: z.number() })
      .meta({ description: "What sweeping it would bring: its value if sweepable, else 0" }),
  })
  .meta({ id: "DustPortfolioItem" });

/** Spec §2.8 past order. */
export const PastOrder = z
  .object({
    blockNum: z.number().int(),
    time: IsoTime,
    erc20: z.object({ symbol: z.string(), address: z.string(), amount: z.string() }),
    hash: z.string(),
    value: z.object({ eth: z.string(), usd: z.number() }),
    ethPrice: z.number(),
  })
  .meta({ id: "DustPastOrder" });

/** Spec §2.8 wallet information. */
export const WalletInformation = z
  .object({ address: z.string(), portfolio: z.array(PortfolioItem), past_orders: z.array(PastOrder) })
  .meta({ id: "DustWalletInformation" });

/** Spec §2.8 order of the all-orders list. */
export const AllOrdersItem = z
  .object({ balance: z.string(), symbol: z.string(), maker: z.string(), time: IsoTime, tx: z.string() })
  .meta({ id: "DustOrder" });

/** Spec §2.8 order of the open-orders list. */
export const OpenOrdersItem = z
  .object({
    balance: z.string(),
    token: z.tuple([z.string(), z.string()]).meta({ description: "[symbol, token contract address]" }),
    maker: z.string(),
    time: IsoTime,
    tx: z.string(),
  })
  .meta({ id: "DustOpenOrder" });
