import { AbiCoder, Interface, dataLength, dataSlice } from "ethers";

const wallet = new Interface([
  "error Error(string message)",
  "error Panic(uint256 code)",
  "error KernelAccountBatchCallFailed(uint256 index, bytes reason)",
  "error KernelAccountValueInDelegateCall(uint256 value)",
  "error OwnedAccountCallFailed()",
  "error LegacyBaseAccountLengthMismatch(uint256 targets, uint256 values, uint256 datas)",
  // ERC-6093 errors of common token contracts, so a payout's failure reads as what it is.
  "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
  "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
  "error ERC721NonexistentToken(uint256 tokenId)",
  "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
  "error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)",
]);
const abi = AbiCoder.defaultAbiCoder();

/**
 * A readable form of the revert data a wallet's execution ended with (EntryPoint UserOperationRevertReason):
 * `Error(string)` as its message, `Panic` with its code, a failed batch call as "call <i>: <reason>", another
 * contract's custom error with its selector and raw data (for the caller to decode with that contract's ABI).
 */
export function describeRevert(data: string): string {
  if (dataLength(data) < 4) return data === "0x" ? "reverted without a reason" : data;
  let parsed;
  try {
    parsed = wallet.parseError(data);
  } catch {
    parsed = null;
  }
  if (!parsed) return `custom error ${dataSlice(data, 0, 4)}, revert data ${data}`;
  switch (parsed.name) {
    case "Error":
      return String(parsed.args[0]);
    case "Panic":
      return `panic 0x${BigInt(parsed.args[0]).toString(16)}`;
    case "KernelAccountBatchCallFailed":
      return `call ${parsed.args[0]}: ${describeRevert(String(parsed.args[1]))}`;
    case "OwnedAccountCallFailed":
      return "reverted without a reason";
    case "KernelAccountValueInDelegateCall":
      return "a delegatecall cannot carry value";
    default:
      return `${parsed.name}(${abi.decode(parsed.fragment.inputs, dataSlice(data, 4)).join(", ")})`;
  }
}
