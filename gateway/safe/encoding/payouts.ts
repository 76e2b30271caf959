import { Interface, ZeroAddress, concat, dataLength, getAddress, solidityPacked } from "ethers";
import { multiSendInterface } from "./safeArtifacts";
import type { SafeCall } from "./safeTransaction";

/** A fungible transfer: `token` undefined means the chain's native coin. */
export interface TokenTransfer {
  readonly token: string | undefined;
  readonly to: string;
  readonly amount: bigint;
}

/** An NFT transfer; `amount` is 1 for ERC-721. */
export interface NftTransfer {
  readonly standard: "erc721" | "erc1155";
  readonly token: string;
  readonly to: string;
  readonly tokenId: bigint;
  readonly amount: bigint;
}

const erc20 = new Interface(["function transfer(address to, uint256 amount) returns (bool)"]);
const erc721 = new Interface(["function safeTransferFrom(address from, address to, uint256 tokenId)"]);
const erc1155 = new Interface([
  "function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)",
]);

const CALL = 0;
const DELEGATECALL = 1;

/** One transfer as a Safe CALL: native value to `to`, or ERC-20 transfer(to, amount) on the token. */
export function transferCall(t: TokenTransfer): SafeCall {
  if (t.token === undefined) return { to: t.to, value: t.amount, data: "0x", operation: CALL };
  return { to: t.token, value: 0n, data: erc20.encodeFunctionData("transfer", [t.to, t.amount]), operation: CALL };
}

/** MultiSendCallOnly's packed encoding of CALLs: operation(uint8 0) ‖ to(20) ‖ value(32) ‖ data length(32) ‖ data, each; wrapped in multiSend(bytes). */
export function encodeMultiSend(calls: readonly { to: string; value: bigint; data: string }[]): string {
  const packed = calls.map(({ to, value, data }) => {
    // MultiSendCallOnly reads target 0x0 as address(this), i.e. the Safe itself: a payout there would stay put.
    if (getAddress(to) === ZeroAddress) throw new Error("MultiSend call to the zero address");
    return solidityPacked(
      ["uint8", "address", "uint256", "uint256", "bytes"],
      [CALL, to, value, dataLength(data), data],
    );
  });
  return multiSendInterface.encodeFunctionData("multiSend", [concat(packed)]);
}

/** Wraps calls in one DELEGATECALL to MultiSendCallOnly, so they run as the Safe and revert together. */
function batch(multiSendCallOnly: string, calls: readonly SafeCall[]): SafeCall {
  // An empty batch would still spend a Safe nonce while doing nothing.
  if (calls.length === 0) throw new Error("A payout needs at least one transfer");
  // Delegatecalling it is safe: MultiSendCallOnly keeps no state and reverts on an entry with operation 1,
  // so the batch can only make plain CALLs as the Safe.
  return { to: multiSendCallOnly, value: 0n, data: encodeMultiSend(calls), operation: DELEGATECALL };
}

/** Many transfers in one Safe transaction: a DELEGATECALL to MultiSendCallOnly (a single transfer is still sent this way, for one shape). */
export function disperseCall(multiSendCallOnly: string, transfers: readonly TokenTransfer[]): SafeCall {
  return batch(multiSendCallOnly, transfers.map(transferCall));
}

/** NFT transfers from `safe` in one Safe transaction through MultiSendCallOnly: ERC-721 safeTransferFrom(safe, to, tokenId), ERC-1155 safeTransferFrom(safe, to, id, amount, "0x"). */
export function disperseNftCall(multiSendCallOnly: string, safe: string, transfers: readonly NftTransfer[]): SafeCall {
  return batch(
    multiSendCallOnly,
    transfers.map((t) => nftCall(safe, t)),
  );
}

/** One NFT transfer from `safe` as a Safe CALL on the token. */
export function nftCall(safe: string, t: NftTransfer): SafeCall {
  if (t.standard === "erc1155") {
    const data = erc1155.encodeFunctionData("safeTransferFrom", [safe, t.to, t.tokenId, t.amount, "0x"]);
    return { to: t.token, value: 0n, data, operation: CALL };
  }
  // ERC-721 tokens are unique: any other amount is a caller's mistake, not something to round.
  if (t.amount !== 1n) throw new Error(`An ERC-721 transfer moves exactly one token, not ${t.amount}`);
  const data = erc721.encodeFunctionData("safeTransferFrom", [safe, t.to, t.tokenId]);
  return { to: t.token, value: 0n, data, operation: CALL };
}
