import { unexpectedAnswer } from "../errors.js";
import type { components } from "../generated/openapi.js";
import type { Exchange } from "./exchange.js";
import { newIdempotencyKey, pollUntilFinal, type WaitOptions } from "./transactions.js";

type Schemas = components["schemas"];
/** A Safe request and where it stands. */
export type SafeTxStatus = Schemas["SafeTxStatus"];
/** A Safe account created through the service. */
export type SafeAccount = Schemas["SafeAccount"];

/** Which Safe a request is for, and an optional Idempotency-Key (a fresh one is made when omitted). */
export interface SafeTarget {
  readonly chain: string;
  /** The Safe's address, in any spelling: as `create` and `list` answer it (a plain string) or checksummed. */
  readonly address: string;
  readonly idempotencyKey?: string;
}

/** 1-of-n Safe accounts (docs/safe.md): create, list, calls, payouts, and following their requests. */
export function safeMethods(exchange: Exchange) {
  const idempotency = (key?: string) => ({ "Idempotency-Key": key ?? newIdempotencyKey() });
  const path = (target: SafeTarget) => ({ chain: target.chain, address: target.address });
  const getTransaction = async (target: SafeTarget & { txUuid: string }, wait = false, signal?: AbortSignal) => {
    const record = await exchange.asApp((Authorization) =>
      exchange.api.GET("/v1/{chain}/account/{address}/tx/{txUuid}", {
        headers: { Authorization },
        params: { path: { ...path(target), txUuid: target.txUuid }, query: wait ? { wait: true } : {} },
        signal,
      }),
    );
    if (record.txUuid?.toLowerCase() !== target.txUuid.toLowerCase()) {
      throw unexpectedAnswer(`asked for Safe request ${target.txUuid}, answered ${String(record.txUuid)}`);
    }
    return record;
  };

  return {
    /** Creates a Safe owned by `signers` and the operator, threshold 1; deployed asynchronously. */
    create: (chain: string, body: Schemas["CreateSafeRequest"], idempotencyKey?: string) =>
      exchange.asApp((Authorization) =>
        exchange.api.POST("/v1/{chain}/account", {
          headers: { Authorization, ...idempotency(idempotencyKey) },
          params: { path: { chain } },
          body,
        }),
      ),

    /** One page of the app's Safes on a chain; pass `nextCursor` back for the next. */
    list: (chain: string, body: { limit?: number; cursor?: string } = {}) =>
      exchange.asApp((Authorization) =>
        exchange.api.POST("/v1/{chain}/accounts", { headers: { Authorization }, params: { path: { chain } }, body }),
      ),

    /** A call the Safe makes (no configuration call unless the operator granted them). */
    customCall: (target: SafeTarget, body: Schemas["CustomSafeTxRequest"]) =>
      exchange.asApp((Authorization) =>
        exchange.api.POST("/v1/{chain}/account/{address}/custom", {
          headers: { Authorization, ...idempotency(target.idempotencyKey) },
          params: { path: path(target) },
          body,
        }),
      ),

    /** One native-coin or ERC-20 payout from the Safe. */
    transfer: (target: SafeTarget, body: Schemas["SafeTransferRequest"]) =>
      exchange.asApp((Authorization) =>
        exchange.api.POST("/v1/{chain}/account/{address}/payout/transfer", {
          headers: { Authorization, ...idempotency(target.idempotencyKey) },
          params: { path: path(target) },
          body,
        }),
      ),

    /** Many fungible payouts in one Safe transaction. */
    disperse: (target: SafeTarget, body: Schemas["SafeDisperseRequest"]) =>
      exchange.asApp((Authorization) =>
        exchange.api.POST("/v1/{chain}/account/{address}/payout/disperse", {
          headers: { Authorization, ...idempotency(target.idempotencyKey) },
          params: { path: path(target) },
          body,
        }),
      ),

    /** Many ERC-721 / ERC-1155 payouts in one Safe transaction. */
    disperseNft: (target: SafeTarget, body: Schemas["SafeDisperseNftRequest"]) =>
      exchange.asApp((Authorization) =>
        exchange.api.POST("/v1/{chain}/account/{address}/payout/disperseNFT", {
          headers: { Authorization, ...idempotency(target.idempotencyKey) },
          params: { path: path(target) },
          body,
        }),
      ),

    /** Where a Safe request stands now. */
    getTransaction: (target: SafeTarget & { txUuid: string }) => getTransaction(target),

    /** Follows a Safe request until it is included or failed, bounded and abortable. */
    waitForTransaction: (target: SafeTarget & { txUuid: string }, options: WaitOptions = {}) =>
      pollUntilFinal((wait, signal) => getTransaction(target, wait, signal), options),
  };
}
