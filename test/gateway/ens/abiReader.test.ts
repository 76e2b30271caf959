import { expect } from "chai";
import fc from "fast-check";
import { Interface, getAddress, hexlify } from "ethers";
import { AbiReader } from "../../../gateway/ens/abiReader";
import { type NameOwner, answerRecord } from "../../../gateway/ens/records";
import { decodeResolveCall } from "../../../gateway/ens/resolveCall";
import { parseUserId } from "../../../gateway/identity/userId";

// The gateway decodes lookups with its own ABI reader, in any layout ethers' coder accepts: not only the canonical one
// ethers writes (ccipFastPaths.test.ts), but tails in any order, gaps of any length (offsets need not be whole words),
// shared tails, padding that is not zero, bytes after the end; and it refuses exactly what ethers refuses.

const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RECORDS = new Interface([
  "function text(bytes32 node, string key) view returns (string)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);
const OWNER: NameOwner = { userId: parseUserId("github:alice"), wallet: getAddress(`0x${"ab".repeat(20)}`) };
const NODE = `0x${"11".repeat(32)}`;

const word = (n: number): string => n.toString(16).padStart(64, "0");
const bytesOf = (maxLength: number) => fc.uint8Array({ maxLength }).map((b) => Buffer.from(b));

/** A layout's head (one offset word a value, counted from the head's start) and what follows it. */
interface Layout {
  readonly head: string;
  readonly rest: string;
}

/**
 * Dynamic values as a coder may lay them out after `staticWords` static words: their tails in any order, each after a
 * gap of any bytes, padded with any byte, now and then a value pointing at the tail before it, and bytes after the end.
 */
const looseLayout = (values: fc.Arbitrary<Buffer[]>, staticWords = 0): fc.Arbitrary<Layout> =>
  fc
    .tuple(values, fc.array(fc.nat(99), { maxLength: 8 }), fc.array(bytesOf(40), { maxLength: 8 }), fc.nat(255))
    .map(([items, ranks, gaps, padByte]) => {
      const order = items.map((_, i) => i).sort((a, b) => (ranks[a] ?? 0) - (ranks[b] ?? 0) || a - b);
      const headBytes = 32 * (staticWords + items.length);
      const offsets: number[] = [];
      let tails = "";
      order.forEach((i, rank) => {
        if (rank > 0 && (ranks[i] ?? 0) % 5 === 4) return void (offsets[i] = offsets[order[rank - 1]!]!);
        tails += (gaps[i] ?? Buffer.alloc(0)).toString("hex");
        offsets[i] = headBytes + tails.length / 2;
        const padding = (32 - (items[i]!.length % 32)) % 32;
        tails +=
          word(items[i]!.length) + items[i]!.toString("hex") + padByte.toString(16).padStart(2, "0").repeat(padding);
      });
      return { head: offsets.map(word).join(""), rest: tails + (gaps[7] ?? Buffer.alloc(0)).toString("hex") };
    });

/** What `decode` returns through ethers, as JSON, or "refused" where it throws. */
function outcome(decode: () => unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(decode()));
  } catch {
    return "refused";
  }
}

describe("the gateway's ABI reader reads any layout ethers' coder reads, and refuses what it refuses (property)", () => {
  it("resolve(bytes,bytes): loose layouts and random bytes", () => {
    const selector = RESOLVE.getFunction("resolve")!.selector;
    let decoded = 0;
    const same = (callData: string) => {
      const ours = decodeResolveCall(callData);
      const ethers = outcome(() => [...RESOLVE.decodeFunctionData("resolve", callData)]);
      expect(ours === undefined ? "refused" : [hexlify(ours[0]), ours[1]], callData).to.deep.equal(ethers);
      if (ours !== undefined) decoded++;
    };
    const pair = fc.tuple(bytesOf(70), bytesOf(70)).map((values) => [...values]);
    fc.assert(
      fc.property(looseLayout(pair), ({ head, rest }) => same(`${selector}${head}${rest}`)),
      { numRuns: 500 },
    );
    expect(decoded, "most loose layouts decode").to.be.greaterThan(400);
    fc.assert(
      fc.property(bytesOf(200), (args) => same(`${selector}${args.toString("hex")}`)),
      { numRuns: 500 },
    );
  });

  it("text and multicall record calls: loose layouts answered as the calls ethers reads from them", () => {
    const text = RECORDS.getFunction("text")!.selector;
    const multicall = RECORDS.getFunction("multicall")!.selector;
    const key = fc.oneof(fc.constantFrom("com.github", "description", "email"), fc.string({ maxLength: 40 }));
    const keyBytes = fc.oneof(
      key.map((k) => Buffer.from(k, "utf8")),
      bytesOf(40),
    );
    const textCall = key.map((k) => Buffer.from(RECORDS.encodeFunctionData("text", [NODE, k]).slice(2), "hex"));
    const item = fc.oneof(textCall, bytesOf(80));
    let answered = 0;
    /** Our answer to `call`, against the answer to the canonical call ethers reads from it (`canonical`). */
    const same = (call: string, canonical: () => string) => {
      const expected = outcome(() => answerRecord(canonical(), OWNER));
      const ours = outcome(() => answerRecord(call, OWNER));
      expect(ours, call).to.equal(expected);
      if (ours !== "refused") answered++;
    };
    fc.assert(
      fc.property(
        looseLayout(
          keyBytes.map((k) => [k]),
          1,
        ),
        ({ head, rest }) => {
          const call = `${text}${NODE.slice(2)}${head}${rest}`;
          same(call, () => RECORDS.encodeFunctionData("text", [...RECORDS.decodeFunctionData("text", call)]));
        },
      ),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(looseLayout(fc.array(item, { maxLength: 4 })), fc.nat(3), ({ head, rest }, gapWords) => {
        // multicall(bytes[]): the array's offset (after a gap), its count, then its items' offsets and tails.
        const count = word(head.length / 64);
        const call = `${multicall}${word(32 + 32 * gapWords)}${"ee".repeat(32 * gapWords)}${count}${head}${rest}`;
        const [items] = (() => {
          try {
            return RECORDS.decodeFunctionData("multicall", call) as unknown as [string[]];
          } catch {
            return [undefined];
          }
        })();
        same(call, () => RECORDS.encodeFunctionData("multicall", [[...items!]]));
      }),
      { numRuns: 400 },
    );
    expect(answered, "most loose layouts are answered").to.be.greaterThan(600);
  });

  it("refuses a word past the end and an offset of 2^53", () => {
    const data = Buffer.from(`${word(32)}${word(3)}${"ab".repeat(3)}${"00".repeat(29)}`, "hex");
    expect(new AbiReader(data).bytes(0, 0).toString("hex")).to.equal("ababab");
    expect(() => new AbiReader(data.subarray(0, 95)).bytes(0, 0)).to.throw("out of bounds");
    const justSafe = Buffer.from(`${"00".repeat(25)}1f${"ff".repeat(6)}`, "hex");
    expect(() => new AbiReader(justSafe).bytes(0, 0)).to.throw("out of bounds");
    const unsafe = Buffer.from(`${"00".repeat(25)}20${"00".repeat(6)}`, "hex");
    expect(() => new AbiReader(unsafe).bytes(0, 0)).to.throw("2^53");
  });
});
