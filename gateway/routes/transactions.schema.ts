import { z } from "zod";
import { Address, Hex } from "../chains/evmSchemas";

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
