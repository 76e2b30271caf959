/**
 * CCIP-read lookups for the gateway bench, built as ethers builds them for the ENS resolver's
 * OffchainLookup: `resolve(dnsEncode(name), recordCall(namehash(name), …))`. Built by hand with a native
 * keccak so that the load generator, which shares the machine with the server, stays cheap; ccipCheck.ts
 * proves the bytes equal ethers' own for every kind of lookup.
 */
import createKeccakHash from "keccak";

/** The sender in every lookup URL: any fixed address (the bench server answers any resolver). */
export const BENCH_SENDER = "0x00000000000000000000000000000000000000e5";
/** The ENS domain the bench server is configured with. */
export const BENCH_DOMAIN = "idwallet.eth";

/** The record a lookup asks for. */
export type BenchRecord =
  | { readonly kind: "addr" }
  | { readonly kind: "coin"; readonly coinType: bigint }
  | { readonly kind: "text"; readonly key: string };

/** One lookup: the name, its owner's user id, the record, and the URL path of the GET. */
export interface BenchLookup {
  readonly name: string;
  readonly userId: string;
  readonly record: BenchRecord;
  readonly callData: string;
  readonly path: string;
}

// 7 digits after the "1555" prefix: distinct for the first 10 million tel names of a run.
const TEL_SPAN = 10_000_000;
// Mainnet (60), Base (ENSIP-11 0x80000000 | 8453), the ENSIP-19 default EVM type: all answered with the wallet.
const COIN_TYPES = [60n, 0x80000000n | 8453n, 0x80000000n] as const;
const TEXT_KEYS = ["com.github", "description", "idwallet.userId", "email"] as const;

// ABI selectors: resolve(bytes,bytes), addr(bytes32), addr(bytes32,uint256), text(bytes32,string).
const RESOLVE = "9061b923";
const ADDR = "3b3b57de";
const ADDR_COIN = "f1cb7e06";
const TEXT = "59d1d43c";

const keccak = (data: Buffer): Buffer => createKeccakHash("keccak256").update(data).digest();

/** Namehashes of the parents of bench names (a handful), so that a lookup costs the generator two hashes. */
const parentNodes = new Map<string, Buffer>([["", Buffer.alloc(32)]]);

/** ENS namehash of a dotted, already normalized name (EIP-137). */
export function fastNamehash(name: string): Buffer {
  const dot = name.indexOf(".");
  if (dot < 0) return keccak(Buffer.concat([Buffer.alloc(32), keccak(Buffer.from(name, "utf8"))]));
  const parent = name.slice(dot + 1);
  let parentNode = parentNodes.get(parent);
  if (parentNode === undefined) parentNodes.set(parent, (parentNode = fastNamehash(parent)));
  return keccak(Buffer.concat([parentNode, keccak(Buffer.from(name.slice(0, dot), "utf8"))]));
}

/** A uint256 word. */
const word = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, "0");
/** ABI `bytes`/`string` tail: length word, then the bytes right-padded to a whole word. */
const tail = (hex: string): string => word(hex.length / 2) + hex.padEnd(Math.ceil(hex.length / 64) * 64, "0");

/** DNS wire format of a dotted name: length-prefixed labels, zero-terminated (ENSIP-10). */
function dnsEncodeHex(name: string): string {
  let out = "";
  for (const label of name.split(".")) {
    const bytes = Buffer.from(label, "utf8");
    out += bytes.length.toString(16).padStart(2, "0") + bytes.toString("hex");
  }
  return `${out}00`;
}

function recordCallHex(node: Buffer, record: BenchRecord): string {
  const hash = node.toString("hex");
  switch (record.kind) {
    case "addr":
      return ADDR + hash;
    case "coin":
      return ADDR_COIN + hash + word(record.coinType);
    case "text":
      return TEXT + hash + word(64) + tail(Buffer.from(record.key, "utf8").toString("hex"));
  }
}

/** The OffchainLookup call data `resolve(bytes name, bytes data)` for `record` of `name`, lowercase hex. */
export function lookupCallData(name: string, record: BenchRecord): string {
  const dns = dnsEncodeHex(name);
  const call = recordCallHex(fastNamehash(name), record);
  // Two dynamic arguments: their offsets, then each tail.
  const nameTail = tail(dns);
  return `0x${RESOLVE}${word(64)}${word(64 + nameTail.length / 2)}${nameTail}${tail(call)}`;
}

/** The GET path ethers requests for a lookup: `/ccip/{sender}/{data}.json`, both lowercase. */
export const lookupPath = (sender: string, callData: string): string =>
  `/ccip/${sender.toLowerCase()}/${callData.toLowerCase()}.json`;

/** A lookup of `record` of `name`, which stands for `userId`. */
export function benchLookup(name: string, userId: string, record: BenchRecord): BenchLookup {
  const callData = lookupCallData(name, record);
  return { name, userId, record, callData, path: lookupPath(BENCH_SENDER, callData) };
}

/** The n-th name of a run and its user id: github, tel and e-mail in turn. */
export function benchName(n: number): { name: string; userId: string } {
  switch (n % 3) {
    case 0:
      return { name: `user${n}.github.${BENCH_DOMAIN}`, userId: `github:user${n}` };
    case 1: {
      const digits = `1555${String(n % TEL_SPAN).padStart(7, "0")}`;
      return { name: `${digits}.tel.${BENCH_DOMAIN}`, userId: `tel:${digits}` };
    }
    default:
      return { name: `u${n}.at.example.com.email.${BENCH_DOMAIN}`, userId: `email:u${n}@example.com` };
  }
}

/** The n-th record of a run: addr(bytes32), addr(bytes32,uint256), text in turn, each kind with every name kind. */
export function benchRecord(n: number): BenchRecord {
  // Divided by 3 first, so that record kinds do not move in step with name kinds.
  const m = Math.floor(n / 3);
  const variant = Math.floor(m / 3);
  switch (m % 3) {
    case 0:
      return { kind: "addr" };
    case 1:
      return { kind: "coin", coinType: COIN_TYPES[variant % COIN_TYPES.length]! };
    default:
      return { kind: "text", key: TEXT_KEYS[variant % TEXT_KEYS.length]! };
  }
}

/** Hands out lookups, each of a name no earlier lookup of the run asked for. */
export class LookupSource {
  private next = 0;

  /** The next lookup. */
  nextLookup(): BenchLookup {
    const n = this.next++;
    const { name, userId } = benchName(n);
    return benchLookup(name, userId, benchRecord(n));
  }

  /** How many lookups have been handed out. */
  get used(): number {
    return this.next;
  }
}
