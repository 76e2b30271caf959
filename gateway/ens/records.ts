import { AbiCoder, Interface, dataSlice } from "ethers";
import { type UserId, formatUserId } from "../identity/userId";
import { WALLET_COIN_TYPES } from "./coinTypes";
import { LookupTooLargeError, MAX_LOOKUP_RECORD_CALLS } from "./lookupLimits";

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
const EMPTY_BYTES_RESULT = abi.encode(["bytes"], ["0x"]);

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

/** `owner` if a record call about `node` (hex digits, with or without 0x) is about its name, else nobody. */
const ownerOfNode = (owner: NameOwner | undefined, node: string): NameOwner | undefined =>
  owner && (owner.node === undefined || owner.node === node.replace(/^0x/, "").toLowerCase()) ? owner : undefined;

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
 * Calls the gateway does not know answer empty bytes; a malformed call throws, and a multicall of more than
 * MAX_LOOKUP_RECORD_CALLS records throws LookupTooLargeError.
 */
export function answerRecord(call: string, owner: NameOwner | undefined, depth = 0): string {
  return (
    answerCommonRecord(call, owner) ??
    (depth === 0 ? answerCanonicalMulticall(call, owner) : undefined) ??
    answerAnyRecord(call, owner, depth)
  );
}

// The calls ENS clients send, canonically encoded, are answered without ethers' Interface, which spends
// hundreds of µs a call finding the fragment and decoding; anything else goes through it below.
const LOWER_HEX = /^0x[0-9a-f]*$/;
// In a u-flag class, surrogates match only when unpaired.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const ADDR_CALL = "0x3b3b57de";
const ADDR_COIN_CALL = "0xf1cb7e06";
const TEXT_CALL = "0x59d1d43c";
const MULTICALL_CALL = "0xac9650d8";
/** Hex characters of the selector and of one ABI word. */
const SELECTOR_HEX = 10;
const WORD_HEX = 64;

const word = (n: number): string => n.toString(16).padStart(WORD_HEX, "0");
/** abi.encode(["bytes"] or ["string"], [value]) of `bytes`. */
const encodeDynamic = (bytes: Buffer): string =>
  `0x${word(32)}${word(bytes.length)}${bytes.toString("hex").padEnd(Math.ceil(bytes.length / 32) * WORD_HEX, "0")}`;
/** abi.encode(["bytes"], [address]) of a 0x-address. */
const encodeAddressBytes = (address: string): string =>
  `0x${word(32)}${word(20)}${address.slice(2).toLowerCase()}${"0".repeat(24)}`;

/**
 * The answer to addr(bytes32), addr(bytes32,uint256) or text(bytes32,string) with an ASCII key, when `call`
 * is lowercase hex in the exact canonical ABI layout (what ethers sends); undefined for anything else.
 * Exported for its property test, which holds it to ethers' decoding and encoding.
 */
export function answerCommonRecord(call: string, nameOwner: NameOwner | undefined): string | undefined {
  if (!LOWER_HEX.test(call)) return undefined;
  const selector = call.slice(0, SELECTOR_HEX);
  const owner = ownerOfNode(nameOwner, call.slice(SELECTOR_HEX, SELECTOR_HEX + WORD_HEX));
  if (selector === ADDR_CALL && call.length === SELECTOR_HEX + WORD_HEX) {
    return owner ? `0x${"0".repeat(24)}${owner.wallet.slice(2).toLowerCase()}` : ZERO_ADDRESS_RESULT;
  }
  if (selector === ADDR_COIN_CALL && call.length === SELECTOR_HEX + 2 * WORD_HEX) {
    const coinType = BigInt(`0x${call.slice(SELECTOR_HEX + WORD_HEX)}`);
    return owner && WALLET_COIN_TYPES.has(coinType) ? encodeAddressBytes(owner.wallet) : EMPTY_BYTES_RESULT;
  }
  if (selector === TEXT_CALL && call.length >= SELECTOR_HEX + 3 * WORD_HEX) {
    const key = canonicalStringArgument(call, SELECTOR_HEX + WORD_HEX);
    if (key === undefined) return undefined;
    const value = (owner && TEXT_RECORDS.get(key)?.(owner)) ?? "";
    // Lone surrogates: ethers refuses to encode them, Buffer would replace them; let ethers decide.
    return LONE_SURROGATE.test(value) ? undefined : encodeDynamic(Buffer.from(value, "utf8"));
  }
  return undefined;
}

/** The value of the hex word at hex index `at` if it is below 2^48 (every real offset and length), else -1. */
function smallHexWord(call: string, at: number): number {
  if (at + WORD_HEX > call.length) return -1;
  for (let i = at; i < at + WORD_HEX - 12; i++) if (call.charCodeAt(i) !== 0x30) return -1;
  return parseInt(call.slice(at + WORD_HEX - 12, at + WORD_HEX), 16);
}

/**
 * The answer to multicall(bytes[]) when `call` is lowercase hex laid out exactly as ethers encodes it (offsets in
 * order, each item right after the one before, zero padding), each item answered as answerAnyRecord answers it;
 * undefined for anything else. ethers' coder spends milliseconds on a profile's worth of records.
 */
function answerCanonicalMulticall(call: string, owner: NameOwner | undefined): string | undefined {
  if (!call.startsWith(MULTICALL_CALL) || !LOWER_HEX.test(call)) return undefined;
  if (call.slice(SELECTOR_HEX, SELECTOR_HEX + WORD_HEX) !== word(32)) return undefined;
  const count = smallHexWord(call, SELECTOR_HEX + WORD_HEX);
  // The offsets area starts after the array's length; each offset counts bytes from there.
  const area = SELECTOR_HEX + 2 * WORD_HEX;
  if (count < 0 || area + count * WORD_HEX > call.length) return undefined;
  const items: string[] = [];
  let next = count * 32;
  for (let i = 0; i < count; i++) {
    if (smallHexWord(call, area + i * WORD_HEX) !== next) return undefined;
    const head = area + 2 * next;
    const length = smallHexWord(call, head);
    const paddedHex = Math.ceil(length / 32) * WORD_HEX;
    if (length < 0 || head + WORD_HEX + paddedHex > call.length) return undefined;
    const end = head + WORD_HEX + 2 * length;
    for (let j = end; j < head + WORD_HEX + paddedHex; j++) if (call.charCodeAt(j) !== 0x30) return undefined;
    items.push(`0x${call.slice(head + WORD_HEX, end)}`);
    next += 32 + paddedHex / 2;
  }
  if (area + 2 * next !== call.length) return undefined;
  if (count > MAX_LOOKUP_RECORD_CALLS) {
    throw new LookupTooLargeError(`A lookup may ask at most ${MAX_LOOKUP_RECORD_CALLS} records in a multicall`);
  }
  const answers = items.map((item) => answerItem(item, owner).slice(2));
  let offset = count * 32;
  const offsets = answers.map((answer) => {
    const at = offset;
    offset += 32 + Math.ceil(answer.length / 2 / 32) * 32;
    return word(at);
  });
  const tails = answers.map(
    (answer) => `${word(answer.length / 2)}${answer.padEnd(Math.ceil(answer.length / WORD_HEX) * WORD_HEX, "0")}`,
  );
  return `0x${word(32)}${word(count)}${offsets.join("")}${tails.join("")}`;
}

/** The ASCII string whose head word is at hex index `head`, if it is the call's last argument, laid out canonically. */
function canonicalStringArgument(call: string, head: number): string | undefined {
  const offsetWord = call.slice(head, head + WORD_HEX);
  const lengthWord = call.slice(head + WORD_HEX, head + 2 * WORD_HEX);
  // The tail follows the head directly, and its length fits far below 2^48 (anything else: not canonical).
  if (offsetWord !== word(64) || !lengthWord.startsWith("0".repeat(WORD_HEX - 12))) return undefined;
  const length = parseInt(lengthWord.slice(-12), 16);
  const start = head + 2 * WORD_HEX;
  if (call.length !== start + Math.ceil(length / 32) * WORD_HEX) return undefined;
  const bytes = Buffer.from(call.slice(start, start + 2 * length), "hex");
  // ASCII only: for other bytes, ethers' UTF-8 decoding (and its errors) stays the rule.
  for (const byte of bytes) if (byte >= 0x80) return undefined;
  return bytes.toString("latin1");
}

function answerAnyRecord(call: string, nameOwner: NameOwner | undefined, depth: number): string {
  const fragment = RECORDS.getFunction(dataSlice(call, 0, 4));
  if (!fragment) return "0x";
  const args = RECORDS.decodeFunctionData(fragment, call);
  // Every record call but multicall names its node first.
  const owner = fragment.name === "multicall" ? nameOwner : ownerOfNode(nameOwner, args[0] as string);
  switch (fragment.format()) {
    case "addr(bytes32)":
      return owner ? abi.encode(["address"], [owner.wallet]) : ZERO_ADDRESS_RESULT;
    case "addr(bytes32,uint256)":
      return abi.encode(["bytes"], [owner && WALLET_COIN_TYPES.has(args[1] as bigint) ? owner.wallet : "0x"]);
    case "text(bytes32,string)":
      return abi.encode(["string"], [(owner && TEXT_RECORDS.get(args[1] as string)?.(owner)) ?? ""]);
    case "contenthash(bytes32)":
      return abi.encode(["bytes"], ["0x"]);
    case "multicall(bytes[])": {
      // One level only; each item is answered on its own, a malformed one as empty bytes.
      const items = args[0] as string[];
      if (depth === 0 && items.length > MAX_LOOKUP_RECORD_CALLS) {
        throw new LookupTooLargeError(`A lookup may ask at most ${MAX_LOOKUP_RECORD_CALLS} records in a multicall`);
      }
      return abi.encode(["bytes[]"], [items.map((item) => (depth > 0 ? "0x" : answerItem(item, owner)))]);
    }
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
