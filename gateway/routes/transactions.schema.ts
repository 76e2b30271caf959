import { z } from "zod";
import { Address, Hex } from "../chains/evmSchemas";
import { TxStatusResponse } from "../transactions/txViews.schema";

const MAX_UINT256 = (1n << 256n) - 1n;
/** A static bound above any TX_MAX_CALLS, so an oversized array is refused before its entries are parsed. */
const MAX_ARRAY = 256;

/** A native-coin amount in wei: a decimal or 0x-hex string. */
export const WeiAmount = z
  .string()
  .regex(/^(\d{1,78}|0x[0-9a-fA-F]{1,64})$/, "wei as a decimal or 0x-hex string")
  .transform((v) => BigInt(v))
  .refine((v) => v <= MAX_UINT256, "at most 2^256 - 1")
  .meta({ example: "1000000000000000" });

const common = {
  userId: z.string().min(1).max(300).meta({ example: "tel:14155552671" }),
  chain: z.string().min(1).max(64).meta({ example: "localhost" }),
  to: z.array(Address).max(MAX_ARRAY).meta({ description: "Call targets, one per call" }),
  value: z.array(WeiAmount).max(MAX_ARRAY).meta({ description: "Wei sent with each call, decimal or 0x-hex" }),
  data: z.array(Hex).max(MAX_ARRAY).meta({ description: "Call data of each call; `0x` is empty" }),
};

/** POST /v1/kernel/tx body (spec §2.5). */
export const KernelTxRequestBody = z
  .object({
    ...common,
    delegatecall: z
      .union([z.literal(0), z.literal(1)])
      .default(0)
      .meta({
        description:
          "1: every call of the request is a DELEGATECALL from the wallet (the target's code runs on the wallet's " +
          "storage and balance; value must be 0); only for an app the operator granted delegatecall, else 403 " +
          "CALL_NOT_ALLOWED. 0: ordinary calls",
      }),
    auth: z.string().max(10_000).meta({ description: "The user proof (see Authentication); blank only in test mode" }),
  })
  .meta({ id: "KernelTxRequest" });

/** POST /v1/base/tx body (spec §2.7): all six fields required, no delegatecall. */
export const BaseTxRequestBody = z.object({ ...common, auth: z.string().max(10_000) }).meta({ id: "BaseTxRequest" });

/** `Idempotency-Key` header: retries with the same key return the first request's record. */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, "1 to 255 visible ASCII characters")
  .optional();

/**
 * GET /v1/kernel/tx/{id} query. `wait` is the text `true` or `false` as a query carries it, documented as the boolean
 * it means, so a generated client takes a boolean and sends exactly those words.
 */
export const TxStatusQuery = z.object({
  wait: z.enum(["true", "false"]).optional().meta({
    type: "boolean",
    description: "true: hold the request until the transaction is final or the wait limit passes",
  }),
});

/** Default and largest page of the request listings (GET /v1/kernel/tx, GET /v1/{chain}/account/{address}/txs). */
export const TX_LIST_PAGE = { default: 20, max: 100 } as const;

const PAGE_SIZE = `an integer from 1 to ${TX_LIST_PAGE.max}`;

/** The parameters every request listing takes: its page size, the cursor of the page before, a status. */
export const ListPageQuery = {
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, PAGE_SIZE)
    .transform(Number)
    .pipe(z.number().int().min(1, PAGE_SIZE).max(TX_LIST_PAGE.max, PAGE_SIZE))
    .default(TX_LIST_PAGE.default)
    // The query's text is parsed to a number: documented as the integer it is, not the string it arrives as.
    .meta({
      type: "integer",
      minimum: 1,
      maximum: TX_LIST_PAGE.max,
      default: TX_LIST_PAGE.default,
      description: "Requests a page holds at most",
    }),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .meta({ description: "`nextCursor` of the page before, with the same filters; omitted for the first page" }),
  status: TxStatusResponse.shape.status.optional().meta({ description: "Only requests in this state" }),
};

/** GET /v1/kernel/tx query: every filter optional; an unknown parameter is refused rather than ignored. */
export const TxListQuery = z.strictObject({
  userId: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .meta({ description: "Only this user id's requests, in any spelling of it", example: "tel:14155552671" }),
  chain: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: "Only requests on this chain", example: "localhost" }),
  ...ListPageQuery,
});

/** A page of a request listing: newest first, and the cursor of the next page. */
export const listPage = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item).meta({ description: "Newest first (requests of one millisecond by id)" }),
    nextCursor: z.string().nullable().meta({
      description:
        "null: no more. A page may hold fewer than `limit`, even none, and still have a nextCursor: follow it until null",
    }),
  });

/** GET /v1/kernel/tx answer. */
export const TxListResponse = listPage(TxStatusResponse).meta({ id: "TxList" });
