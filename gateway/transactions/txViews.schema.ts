import { z } from "zod";

/** Why a request failed or its calls reverted, as its public record says it. */
const RequestError = z.object({ code: z.string(), message: z.string() });

/** A wallet request and where it stands: what `transactionView` makes, its GET's body and its webhook events' data. */
export const TxStatusResponse = z
  .object({
    id: z.string().meta({ example: "0b4cba7e-3f7a-4b1e-9df6-5b7c1d2e8a90" }),
    status: z.enum(["queued", "submitted", "included", "failed"]).meta({
      description:
        "queued: accepted and durable; submitted: its UserOperation is on its way to the chain; included: on " +
        "chain (see success); failed: will never be included (see error)",
    }),
    userId: z.string(),
    chain: z.string(),
    sender: z.string().meta({ description: "The wallet address" }),
    userOpHash: z.string().nullable(),
    transactionHash: z.string().nullable().meta({ description: "The bundle transaction that included it" }),
    blockNumber: z.number().int().nullable(),
    success: z.boolean().nullable().meta({ description: "Once included: whether the calls succeeded" }),
    error: RequestError.nullable().meta({
      description: "Why it failed, or why its calls reverted (EXECUTION_REVERTED with the reason)",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "TxStatus" });

/** Where a Safe request stands. */
export const SafeTxStatusValue = z.enum(["queued", "submitted", "included", "failed"]).meta({
  description:
    "queued: accepted and durable; submitted: the relayer's transaction is on its way; included: executed on " +
    "chain; failed: will never execute (see error)",
});

/** A Safe request and where it stands: what `safeTransactionView` makes, its GET's body and its webhook events' data. */
export const SafeTxStatusResponse = z
  .object({
    txUuid: z.string(),
    action: z.enum(["create", "custom", "transfer", "disperse", "disperseNFT"]).nullable(),
    status: SafeTxStatusValue,
    chain: z.string(),
    safe: z.string().meta({ description: "The Safe's address" }),
    safeTxHash: z.string().nullable().meta({ description: "EIP-712 hash of the Safe transaction (not for create)" }),
    transactionHash: z.string().nullable().meta({ description: "The relayer's transaction that executed it" }),
    blockNumber: z.number().int().nullable(),
    error: RequestError.nullable().meta({
      description: "Why it failed (the inner call's revert reason for EXECUTION_REVERTED)",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "SafeTxStatus" });
