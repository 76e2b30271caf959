import { z } from "zod";
import { Bytes32 } from "../chains/evmSchemas";

/** POST /v1/kernel/sign body (spec §2.6, plus the user proof and an optional chain). */
export const SignRequestBody = z
  .object({
    userId: z.string().min(1).max(300).meta({ example: "tel:14155552671" }),
    hash: Bytes32.meta({ description: "The 32-byte hash the wallet signs for" }),
    auth: z.string().max(10_000).default("").meta({ description: "The user proof (see Authentication)" }),
    chain: z.string().optional().meta({
      description: "Chain the signature is for: if the wallet is deployed there, `signature` is the plain EIP-1271 one",
    }),
  })
  .meta({ id: "SignRequest" });

/** POST /v1/kernel/sign answer. */
export const SignResponse = z
  .object({
    userId: z.string().meta({ description: "Canonical user id" }),
    accountAddress: z.string(),
    hash: z.string(),
    chain: z.string().optional(),
    deployed: z
      .boolean()
      .nullable()
      .meta({ description: "Whether the wallet has code on `chain` (null: no chain given)" }),
    signature: z.string().meta({ description: "ERC-6492-wrapped unless the wallet is deployed on `chain`" }),
    erc1271Signature: z.string().meta({ description: "What isValidSignature accepts wherever the wallet exists" }),
  })
  .meta({ id: "SignResponse" });
