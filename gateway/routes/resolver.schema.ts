import { z } from "zod";
import { ACCOUNT_TYPES } from "../identity/walletAddress";
import { Address } from "../chains/evmSchemas";

/** POST /v1/resolver body (spec §4.2). */
export const ResolverRequest = z
  .object({
    userIds: z.string().min(1, "at least one user id").meta({
      description: "User ids `<provider>:<username>` joined by `,` (spaces around ids are ignored)",
      example: "github:alice,tel:15551234567",
    }),
    accountType: z
      .enum(ACCOUNT_TYPES)
      .default("kernel")
      .meta({ description: "Account type whose address to return; `base` is deprecated" }),
  })
  .meta({ id: "ResolverRequest" });

/** POST /v1/resolver answer (spec §2.4). */
export const ResolverResponse = z
  .object({
    updatedAt: z.iso.datetime().meta({ description: "When this answer was computed" }),
    accountType: z.enum(ACCOUNT_TYPES),
    users: z.array(
      z.object({
        userId: z.string().meta({ description: "The id as sent" }),
        canonicalUserId: z.string().meta({ description: "The canonical form the address is derived from" }),
        accountAddress: Address.meta({ description: "Wallet address, the same on every chain" }),
        ensName: z
          .string()
          .nullable()
          .meta({
            description:
              "The id's ENS name under the service's domain, resolving to its kernel wallet (whatever accountType); " +
              "null when the id has none",
            example: "jack-dorsey.x.idwallet.eth",
          }),
      }),
    ),
  })
  .meta({ id: "ResolverResponse" });
