import { z } from "zod";
import { Address, Hex } from "../chains/evmSchemas";
import { SafeTxStatusResponse, SafeTxStatusValue } from "../transactions/txViews.schema";
import { ListPageQuery, WeiAmount, listPage } from "./transactions.schema";

/** Most transfers one disperse or disperseNFT request carries (one Safe transaction, one block's gas). */
export const MAX_PAYOUT_TRANSFERS = 200;
/** Default and largest page of POST .../accounts. */
export const SAFES_PAGE = { default: 50, max: 200 };

/** A uint256 as a decimal or 0x-hex string (token ids, salt nonces). */
const Uint256 = WeiAmount;
/** An amount to pay out: a transfer of nothing would still use a Safe nonce. */
const Amount = WeiAmount.refine((v) => v > 0n, "more than 0");

/** POST /v1/{chain}/account body. */
export const CreateSafeBody = z
  .object({
    signers: z
      .array(Address)
      .min(1)
      // A static bound for parsing; the owner limit itself answers TOO_MANY_SIGNERS.
      .max(256)
      .meta({ description: "The customer's owner keys; the operator's key is added by the service. Threshold 1 of n" }),
    saltNonce: Uint256.optional().meta({
      description: "CREATE2 salt nonce; the same signers and saltNonce give the same address. Random if omitted",
    }),
  })
  .meta({ id: "CreateSafeRequest" });

/** POST /v1/{chain}/accounts body (may be empty). */
export const ListSafesBody = z
  .object({
    limit: z.number().int().min(1).max(SAFES_PAGE.max).default(SAFES_PAGE.default),
    cursor: z.string().max(512).optional().meta({ description: "`nextCursor` of the previous page" }),
  })
  .meta({ id: "ListSafesRequest" });

/** POST .../custom body: a call the Safe makes (docs/safe.md: none that could change its configuration, ungranted). */
export const CustomSafeTxBody = z
  .object({
    to: Address,
    value: WeiAmount.optional().meta({ description: "Wei sent with the call; 0 if omitted" }),
    data: Hex.default("0x"),
    operation: z
      .union([z.literal(0), z.literal(1)])
      .default(0)
      .meta({
        description:
          "0 CALL; 1 DELEGATECALL (the target's code runs as the Safe; value must be 0; only for an app the operator " +
          "granted Safe configuration calls, else 403 SAFE_CALL_NOT_ALLOWED)",
      }),
  })
  .meta({ id: "CustomSafeTxRequest" });

const FungibleTransfer = z.object({
  token: Address.optional().meta({ description: "ERC-20 contract; omitted for the chain's native coin" }),
  to: Address,
  amount: Amount.meta({ description: "In the token's smallest unit (wei for the native coin)" }),
});

/** POST .../payout/transfer body. */
export const TransferBody = FungibleTransfer.meta({ id: "SafeTransferRequest" });

/** POST .../payout/disperse body. */
export const DisperseBody = z
  .object({ transfers: z.array(FungibleTransfer).min(1).max(MAX_PAYOUT_TRANSFERS) })
  .meta({ id: "SafeDisperseRequest" });

const NftTransferItem = z
  .object({
    standard: z.enum(["erc721", "erc1155"]).default("erc721"),
    token: Address,
    to: Address,
    tokenId: Uint256,
    amount: Amount.optional().meta({ description: "ERC-1155 amount; 1 (the default) for ERC-721" }),
  })
  .transform((t) => ({ ...t, amount: t.amount ?? 1n }))
  .refine((t) => t.standard === "erc1155" || t.amount === 1n, {
    message: "an ERC-721 transfer moves exactly one token",
    path: ["amount"],
  });

/** POST .../payout/disperseNFT body. */
export const DisperseNftBody = z
  .object({ transfers: z.array(NftTransferItem).min(1).max(MAX_PAYOUT_TRANSFERS) })
  .meta({ id: "SafeDisperseNftRequest" });

/** The `{chain}` and `{address}` of the Safe routes. */
export const SafePathParams = z.object({ chain: z.string().max(64), address: Address });

/** A Safe account created through the service. */
export const SafeAccountResponse = z
  .object({
    address: z.string(),
    chain: z.string(),
    owners: z.array(z.string()).meta({ description: "The signers, then the operator" }),
    threshold: z.literal(1),
    saltNonce: z.string(),
    deployment: z.object({ txUuid: z.string(), status: SafeTxStatusValue, transactionHash: z.string().nullable() }),
    createdAt: z.string(),
  })
  .meta({ id: "SafeAccount" });

/** POST /v1/{chain}/accounts answer. */
export const SafeListResponse = z
  .object({ accounts: z.array(SafeAccountResponse), nextCursor: z.string().nullable() })
  .meta({ id: "SafeList" });

/** GET /v1/{chain}/account/{address}/txs query: the status filter optional; an unknown parameter is refused. */
export const SafeTxListQuery = z.strictObject(ListPageQuery);

/** GET /v1/{chain}/account/{address}/txs answer. */
export const SafeTxListResponse = listPage(SafeTxStatusResponse).meta({ id: "SafeTxList" });
