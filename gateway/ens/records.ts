import { AbiCoder, Interface, dataSlice } from "ethers";
import { type UserId, formatUserId } from "../identity/userId";
import { WALLET_COIN_TYPES } from "./coinTypes";

/** The resolver record functions the gateway answers (ENSIP-1, ENSIP-9/11, ENSIP-5, ENSIP-7, multicall). */
export const RECORDS = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
  "function text(bytes32 node, string key) view returns (string)",
  "function contenthash(bytes32 node) view returns (bytes)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);

const abi = AbiCoder.defaultAbiCoder();
const ZERO_ADDRESS_RESULT = abi.encode(["address"], ["0x0000000000000000000000000000000000000000"]);

/** Who a name stands for, if anyone. */
export interface NameOwner {
  readonly userId: UserId;
  readonly wallet: string;
}

const usernameOn =
  (...providers: string[]) =>
  (o: NameOwner): string | undefined =>
    providers.includes(o.userId.provider) ? o.userId.username : undefined;

/** ENSIP-5 keys answered, and what they hold (a Map: keys are untrusted). Unknown keys answer "". */
const TEXT_RECORDS = new Map<string, (owner: NameOwner) => string | undefined>([
  ["description", (o) => `idwallet wallet of ${formatUserId(o.userId)}`],
  ["idwallet.userId", (o) => formatUserId(o.userId)],
  ["idwallet.accountType", () => "kernel"],
  ["email", usernameOn("email")],
  ["com.github", usernameOn("github")],
  ["com.twitter", usernameOn("twitter", "x")],
  ["com.discord", usernameOn("discord")],
  ["org.telegram", usernameOn("telegram")],
]);

/** Names of the text keys answered, for the documentation. */
export const TEXT_RECORD_KEYS = [...TEXT_RECORDS.keys()];

/**
 * ABI-encoded answer to one resolver call for a name's owner (undefined: the name has no wallet). Absent
 * records answer as ENS clients read "no record": the zero address, empty bytes, an empty string.
 * Calls the gateway does not know answer empty bytes; a malformed call throws.
 */
export function answerRecord(call: string, owner: NameOwner | undefined, depth = 0): string {
  const fragment = RECORDS.getFunction(dataSlice(call, 0, 4));
  if (!fragment) return "0x";
  const args = RECORDS.decodeFunctionData(fragment, call);
  switch (fragment.format()) {
    case "addr(bytes32)":
      return owner ? abi.encode(["address"], [owner.wallet]) : ZERO_ADDRESS_RESULT;
    case "addr(bytes32,uint256)":
      return abi.encode(["bytes"], [owner && WALLET_COIN_TYPES.has(args[1] as bigint) ? owner.wallet : "0x"]);
    case "text(bytes32,string)":
      return abi.encode(["string"], [(owner && TEXT_RECORDS.get(args[1] as string)?.(owner)) ?? ""]);
    case "contenthash(bytes32)":
      return abi.encode(["bytes"], ["0x"]);
    case "multicall(bytes[])":
      // One level only; each item is answered on its own, a malformed one as empty bytes.
      return abi.encode(
        ["bytes[]"],
        [(args[0] as string[]).map((item) => (depth > 0 ? "0x" : answerItem(item, owner)))],
      );
    default:
      return "0x";
  }
}

function answerItem(item: string, owner: NameOwner | undefined): string {
  try {
    return answerRecord(item, owner, 1);
  } catch {
    return "0x";
  }
}
