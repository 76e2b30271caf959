import { ZeroAddress, getAddress } from "ethers";
import { InvalidRequestError } from "../../errors/apiError";
import type { SafeContracts } from "../../config/safeSettings";
import {
  type NftTransfer,
  type TokenTransfer,
  disperseCall,
  disperseNftCall,
  nftCall,
  transferCall,
} from "../encoding/payouts";
import type { SafeCall, SafeOperation } from "../encoding/safeTransaction";

/** What a Safe transaction request asks for, as the routes parsed it (docs/safe.md). */
export type SafeActionRequest =
  | {
      readonly action: "custom";
      readonly to: string;
      readonly value: bigint;
      readonly data: string;
      readonly operation: SafeOperation;
    }
  | ({ readonly action: "transfer" } & TokenTransfer)
  | { readonly action: "disperse"; readonly transfers: readonly TokenTransfer[] }
  | { readonly action: "disperseNFT"; readonly transfers: readonly NftTransfer[] };

/**
 * The Safe transaction a request becomes (`call`) and the calls it makes as the Safe (`runs`, what the Safe call
 * rules look at): `custom` as given; a transfer as one CALL; disperse and disperseNFT as one DELEGATECALL to
 * MultiSendCallOnly batching CALLs, so every transfer happens or none. That delegatecall is the service's own, into
 * code that can only make the plain CALLs it encoded, so `runs` are those CALLs, one per transfer.
 */
export function safeTransactionOf(
  request: SafeActionRequest,
  safe: string,
  contracts: SafeContracts,
): { readonly call: SafeCall; readonly runs: readonly SafeCall[] } {
  const call = safeCallOf(request, safe, contracts);
  switch (request.action) {
    case "custom":
    case "transfer":
      return { call, runs: [call] };
    case "disperse":
      return { call, runs: request.transfers.map(transferCall) };
    case "disperseNFT":
      return { call, runs: request.transfers.map((t) => nftCall(safe, t)) };
  }
}

function safeCallOf(request: SafeActionRequest, safe: string, contracts: SafeContracts): SafeCall {
  switch (request.action) {
    case "custom":
      if (request.operation === 0 && getAddress(request.to) === ZeroAddress) {
        throw new InvalidRequestError("A call cannot go to the zero address", [
          { pointer: "/to", detail: "zero address" },
        ]);
      }
      if (request.operation === 1 && request.value !== 0n) {
        throw new InvalidRequestError(
          "A delegatecall cannot carry value",
          [{ pointer: "/value", detail: "must be 0 with operation 1" }],
          "VALUE_IN_DELEGATECALL",
        );
      }
      return { to: request.to, value: request.value, data: request.data, operation: request.operation };
    case "transfer":
      checkRecipient(request.to, safe, "/to");
      checkToken(request.token, "/token");
      return transferCall(request);
    case "disperse":
      request.transfers.forEach((t, i) => {
        checkRecipient(t.to, safe, `/transfers/${i}/to`);
        checkToken(t.token, `/transfers/${i}/token`);
      });
      return disperseCall(contracts.multiSendCallOnly, request.transfers);
    case "disperseNFT":
      request.transfers.forEach((t, i) => {
        checkRecipient(t.to, safe, `/transfers/${i}/to`);
        checkToken(t.token, `/transfers/${i}/token`);
      });
      return disperseNftCall(contracts.multiSendCallOnly, safe, request.transfers);
  }
}

/** A payout to the zero address burns it, and one to the Safe itself moves nothing: both are refused. */
function checkRecipient(to: string, safe: string, pointer: string): void {
  const address = getAddress(to);
  if (address === ZeroAddress)
    throw new InvalidRequestError("A payout cannot go to the zero address", [{ pointer, detail: "zero address" }]);
  if (address === getAddress(safe))
    throw new InvalidRequestError("A payout cannot go to the Safe itself", [
      { pointer, detail: "the Safe's own address" },
    ]);
}

/** A token contract cannot be the zero address (there is no contract to call; a batch would read it as the Safe). */
function checkToken(token: string | undefined, pointer: string): void {
  if (token !== undefined && getAddress(token) === ZeroAddress) {
    throw new InvalidRequestError("A token cannot be the zero address (omit `token` for the native coin)", [
      { pointer, detail: "zero address" },
    ]);
  }
}
