import { Interface, toUtf8Bytes } from "ethers";
import { type UserId, formatUserId } from "../identity/userId";
import { WALLET_COIN_TYPES } from "./coinTypes";
import { AbiDecodeError, AbiReader, hexBytes } from "./abiReader";
import { LookupTooLargeError, MAX_LOOKUP_RECORD_CALLS } from "./lookupLimits";

/** The resolver record functions the gateway answers (ENSIP-1, ENSIP-9/11, ENSIP-5, ENSIP-7, multicall). */
export const RECORDS = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
  "function text(bytes32 node, string key) view returns (string)",
  "function contenthash(bytes32 node) view returns (bytes)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);

/** The selector of each record function, as hex without 0x. */
const selectorOf = (signature: string): string => RECORDS.getFunction(signature)!.selector.slice(2);
const ADDR = selectorOf("addr(bytes32)");
const ADDR_COIN = selectorOf("addr(bytes32,uint256)");
const TEXT = selectorOf("text(bytes32,string)");
const CONTENTHASH = selectorOf("contenthash(bytes32)");
const MULTICALL = selectorOf("multicall(bytes[])");
const SELECTOR_BYTES = 4;

/** Who a name stands for, if anyone. */
export interface NameOwner {
  readonly userId: UserId;
  readonly wallet: string;
  /**
   * The name's node (ENSIP-1 namehash, 64 lowercase hex digits, no 0x), when known: a record call about another
   * node is answered as for nobody, so an answer for this name is never handed out under another name's node.
   */
  readonly node?: string;
}

/** `owner` if a record call about `node` (64 lowercase hex digits) is about its name, else nobody. */
const ownerOfNode = (owner: NameOwner | undefined, node: string): NameOwner | undefined =>
  owner && (owner.node === undefined || owner.node === node) ? owner : undefined;

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
 * A record call as decoded: the record asked and its node (namehash, hex without 0x), or the calls of a multicall
 * (undefined: one ethers refuses when it is read).
 */
type RecordCall =
  | { readonly kind: "addr" | "contenthash"; readonly node: string }
  | { readonly kind: "coin"; readonly node: string; readonly coinType: bigint }
  | { readonly kind: "text"; readonly node: string; readonly key: () => string }
  | { readonly kind: "multicall"; readonly items: readonly (Buffer | undefined)[] }
  | { readonly kind: "unknown" };

/**
 * ABI-encoded answer to one resolver call for a name's owner (undefined: the name has no wallet). Absent
 * records answer as ENS clients read "no record": the zero address, empty bytes, an empty string.
 * Calls the gateway does not know answer empty bytes; a malformed call throws, and a multicall of more than
 * MAX_LOOKUP_RECORD_CALLS records throws LookupTooLargeError. Decoded and encoded here, in any layout ethers accepts,
 * as ethers' Interface decodes and its AbiCoder encodes (a property test holds it to them), without either: they
 * spend hundreds of µs a call, milliseconds on a profile's worth of records.
 */
export function answerRecord(call: string, owner: NameOwner | undefined): string {
  return `0x${answerCall(hexBytes(call), owner, 0)}`;
}

/** The answer to `call`, as hex without 0x: one level of multicall, each of its calls answered on its own. */
function answerCall(call: Buffer, nameOwner: NameOwner | undefined, depth: number): string {
  const decoded = readRecordCall(call);
  if (decoded.kind === "unknown") return "";
  if (decoded.kind === "multicall") {
    const { items } = decoded;
    if (depth === 0 && items.length > MAX_LOOKUP_RECORD_CALLS) {
      throw new LookupTooLargeError(`A lookup may ask at most ${MAX_LOOKUP_RECORD_CALLS} records in a multicall`);
    }
    if (items.includes(undefined)) throw new AbiDecodeError("a call of a length of 2^53 or more");
    // Nested one level deeper, calls are answered as empty bytes; a malformed one too.
    return encodeBytesArray(items.map((item) => (depth > 0 ? "" : answerItem(item!, nameOwner))));
  }
  const owner = ownerOfNode(nameOwner, decoded.node);
  switch (decoded.kind) {
    case "addr":
      return owner ? addressWord(owner.wallet) : ZERO_WORD;
    case "coin":
      return owner && WALLET_COIN_TYPES.has(decoded.coinType) ? encodeAddressBytes(owner.wallet) : EMPTY_BYTES;
    case "text":
      // The key is read only for an owner: ethers refuses a malformed one only when it is read.
      return encodeString((owner && TEXT_RECORDS.get(decoded.key())?.(owner)) ?? "");
    case "contenthash":
      return EMPTY_BYTES;
  }
}

/** A multicall's call answered, or empty bytes where it is malformed. */
function answerItem(item: Buffer, owner: NameOwner | undefined): string {
  try {
    return answerCall(item, owner, 1);
  } catch {
    return "";
  }
}

/** `call` decoded as ethers' Interface decodes it with RECORDS (AbiReader); throws where it refuses. */
function readRecordCall(call: Buffer): RecordCall {
  if (call.length < SELECTOR_BYTES) throw new AbiDecodeError("no selector");
  const args = new AbiReader(call.subarray(SELECTOR_BYTES));
  switch (call.toString("hex", 0, SELECTOR_BYTES)) {
    case ADDR:
      return { kind: "addr", node: args.bytes32(0) };
    case ADDR_COIN:
      return { kind: "coin", node: args.bytes32(0), coinType: args.uint256(32) };
    case TEXT:
      return { kind: "text", node: args.bytes32(0), key: args.string(0, 32) };
    case CONTENTHASH:
      return { kind: "contenthash", node: args.bytes32(0) };
    case MULTICALL:
      return { kind: "multicall", items: args.bytesArray(0, 0) };
    default:
      return { kind: "unknown" };
  }
}

// ABI encoding, as hex without 0x, as ethers' AbiCoder encodes each answer.
const WORD_HEX = 64;
const word = (n: number): string => n.toString(16).padStart(WORD_HEX, "0");
const ZERO_WORD = word(0);
/** abi.encode(["bytes"], ["0x"]). */
const EMPTY_BYTES = `${word(32)}${word(0)}`;
// In a u-flag class, surrogates match only when unpaired.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** abi.encode(["address"], [address]). */
const addressWord = (address: string): string => `${"0".repeat(24)}${address.slice(2).toLowerCase()}`;
/** abi.encode(["bytes"], [address]): its 20 bytes. */
const encodeAddressBytes = (address: string): string =>
  `${word(32)}${word(20)}${address.slice(2).toLowerCase()}${"0".repeat(24)}`;
/** An ABI `bytes` or `string` tail: its length, then its bytes padded to whole words. */
const tail = (hex: string): string =>
  `${word(hex.length / 2)}${hex.padEnd(Math.ceil(hex.length / WORD_HEX) * WORD_HEX, "0")}`;
/** abi.encode(["bytes"], [bytes]). */
const encodeBytes = (bytes: Buffer): string => `${word(32)}${tail(bytes.toString("hex"))}`;
/** abi.encode(["string"], [value]): lone surrogates as ethers' UTF-8 encoder takes them (it refuses some). */
const encodeString = (value: string): string =>
  encodeBytes(LONE_SURROGATE.test(value) ? Buffer.from(toUtf8Bytes(value)) : Buffer.from(value, "utf8"));

/** abi.encode(["bytes[]"], [items]) of items as hex without 0x. */
function encodeBytesArray(items: readonly string[]): string {
  let offset = items.length * 32;
  const offsets = items.map((item) => {
    const at = offset;
    offset += 32 + Math.ceil(item.length / WORD_HEX) * 32;
    return word(at);
  });
  return `${word(32)}${word(items.length)}${offsets.join("")}${items.map(tail).join("")}`;
}
