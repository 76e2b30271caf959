import { expect } from "chai";
import { testCustodySigner } from "../../../helpers/keySigners";
import fc from "fast-check";
import { AbiCoder, Interface, SigningKey, ZeroAddress, dataSlice, getAddress, hexlify, recoverAddress } from "ethers";
import { ccipSignatureHash } from "../../../../gateway/ens/ccipSignature";
import { signCcipResponse } from "../../../helpers/ccipResponses";
import { createCcipSigner } from "../../../../gateway/ens/ccipSigner";
import { WALLET_COIN_TYPES } from "../../../../gateway/ens/coinTypes";
import { type NameOwner, answerRecord } from "../../../../gateway/ens/records";
import { decodeResolveCall } from "../../../../gateway/ens/resolveCall";
import { formatUserId, parseUserId } from "../../../../gateway/identity/userId";

// The gateway reads requests and writes answers by hand, ethers' coder being slow; a wrong reading would sign a
// wrong answer. Each is held here to what ethers' AbiCoder and Interface make of the same bytes.

const abi = AbiCoder.defaultAbiCoder();
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RECORDS = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
  "function text(bytes32 node, string key) view returns (string)",
  "function contenthash(bytes32 node) view returns (bytes)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);

const hexBytes = (maxLength: number) => fc.uint8Array({ maxLength }).map((b) => hexlify(b));
const word = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => hexlify(b));

/**
 * `hex` after one of the changes a client (or an attacker) could make to a canonical encoding past its selector:
 * a byte changed, bytes cut or added, a head word (an offset or a length) set to a nearby or a huge value, or the
 * hex in capitals.
 */
function mutated(hex: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      hex,
      fc.constantFrom("byte", "cut", "append", "word", "upper"),
      fc.nat(),
      fc.integer({ min: 0, max: 255 }),
      fc.oneof(fc.integer({ min: -40, max: 40 }), fc.constant(2 ** 48), fc.constant(2 ** 53)),
      hexBytes(40),
    )
    .map(([data, kind, at, byte, delta, extra]) => {
      const bytes = Buffer.from(data.slice(2), "hex");
      const body = bytes.length - 4;
      if (kind === "upper") return `0x${data.slice(2).toUpperCase()}`;
      if (kind === "append") return `${data}${extra.slice(2)}`;
      if (body <= 0) return data;
      if (kind === "cut") return hexlify(bytes.subarray(0, 4 + (at % body)));
      if (kind === "byte") {
        bytes[4 + (at % body)] = byte;
        return hexlify(bytes);
      }
      // A head word: the selector is followed by words; change the value of one of the first few.
      const index = at % Math.max(1, Math.min(6, Math.floor(body / 32)));
      const offset = 4 + 32 * index;
      if (offset + 32 > bytes.length) return data;
      const value = BigInt(`0x${bytes.subarray(offset, offset + 32).toString("hex")}`) + BigInt(delta);
      const next = value < 0n ? 0n : value;
      Buffer.from(next.toString(16).padStart(64, "0").slice(-64), "hex").copy(bytes, offset);
      return hexlify(bytes);
    });
}

/** What ethers' Interface decodes from a resolve call, or "refused". */
function ethersResolve(callData: string): [string, string] | "refused" {
  try {
    const [name, record] = RESOLVE.decodeFunctionData("resolve", callData) as unknown as [string, string];
    return [name, record];
  } catch {
    return "refused";
  }
}

// The text records docs/ens.md, "Records served" documents, written out again as the reference.
const TEXT_BY_PROVIDER = new Map([
  ["email", ["email"]],
  ["com.github", ["github"]],
  ["com.twitter", ["twitter", "x"]],
  ["com.discord", ["discord"]],
  ["org.telegram", ["telegram"]],
]);
function referenceText(owner: NameOwner, key: string): string {
  const id = formatUserId(owner.userId);
  if (key === "description") return `idwallet wallet of ${id}`;
  if (key === "idwallet.userId") return id;
  if (key === "idwallet.accountType") return "kernel";
  return TEXT_BY_PROVIDER.get(key)?.includes(owner.userId.provider) ? owner.userId.username : "";
}

/** The answer to a record call, decoded and encoded by ethers: the gateway's documented behaviour. */
function referenceAnswer(call: string, owner: NameOwner | undefined, depth = 0): string {
  const fragment = RECORDS.getFunction(dataSlice(call, 0, 4));
  if (!fragment) return "0x";
  const args = RECORDS.decodeFunctionData(fragment, call);
  switch (fragment.format()) {
    case "addr(bytes32)":
      return abi.encode(["address"], [owner?.wallet ?? ZeroAddress]);
    case "addr(bytes32,uint256)":
      return abi.encode(["bytes"], [owner && WALLET_COIN_TYPES.has(args[1] as bigint) ? owner.wallet : "0x"]);
    case "text(bytes32,string)":
      return abi.encode(["string"], [owner ? referenceText(owner, args[1] as string) : ""]);
    case "contenthash(bytes32)":
      return abi.encode(["bytes"], ["0x"]);
    default: {
      const items = (args[0] as string[]).map((item) => {
        if (depth > 0) return "0x";
        try {
          return referenceAnswer(item, owner, 1);
        } catch {
          return "0x";
        }
      });
      return abi.encode(["bytes[]"], [items]);
    }
  }
}

// Owners whose text records are not ASCII come often: UTF-8 lengths differ from character counts there.
const owner: fc.Arbitrary<NameOwner | undefined> = fc.option(
  fc
    .tuple(
      fc.constantFrom(
        "github:alice",
        "x:jack_dorsey",
        "discord:jack.dorsey_",
        "telegram:durov",
        "google:someone@gmail.com",
        "demo:Ünï_✓",
        "email:jörg@bücher.de",
        "demo:名前😀",
      ),
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
    )
    .map(([id, address]) => ({ userId: parseUserId(id), wallet: getAddress(hexlify(address)) })),
  { freq: 4 },
);
const key = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "description",
      "idwallet.userId",
      "idwallet.accountType",
      "email",
      "com.github",
      "com.twitter",
      "com.discord",
      "org.telegram",
      "constructor",
      "",
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
);
const coinType = fc.oneof(fc.constantFrom(...WALLET_COIN_TYPES, 0n, 2n ** 256n - 1n), fc.bigInt(0n, 2n ** 256n - 1n));
const recordCall: fc.Arbitrary<string> = fc.oneof(
  word.map((node) => RECORDS.encodeFunctionData("addr(bytes32)", [node])),
  fc.tuple(word, coinType).map(([node, coin]) => RECORDS.encodeFunctionData("addr(bytes32,uint256)", [node, coin])),
  fc.tuple(word, key).map(([node, k]) => RECORDS.encodeFunctionData("text", [node, k])),
  word.map((node) => RECORDS.encodeFunctionData("contenthash", [node])),
);
const anyRecordCall = fc.oneof(
  { weight: 4, arbitrary: recordCall },
  {
    weight: 1,
    arbitrary: fc.array(recordCall, { maxLength: 3 }).map((c) => RECORDS.encodeFunctionData("multicall", [c])),
  },
);

/** The answer `answer` gives, or "refused" where it throws. */
function outcome(answer: () => string): string {
  try {
    return answer();
  } catch {
    return "refused";
  }
}

describe("CCIP-read gateway's ABI decoding and encoding equal ethers' ABI coder (property)", () => {
  it("decodes resolve(bytes,bytes) as ethers does: every canonical call, and no malformed one differently", () => {
    let fast = 0;
    fc.assert(
      fc.property(hexBytes(300), hexBytes(300), (name, record) => {
        const callData = RESOLVE.encodeFunctionData("resolve", [name, record]);
        const decoded = decodeResolveCall(callData);
        expect(decoded, callData).to.not.equal(undefined);
        expect([hexlify(decoded![0]), decoded![1]]).to.deep.equal(ethersResolve(callData));
        fast++;
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        mutated(fc.tuple(hexBytes(100), hexBytes(100)).map((a) => RESOLVE.encodeFunctionData("resolve", a))),
        (callData) => {
          const decoded = decodeResolveCall(callData);
          // A call that decodes must be read as ethers reads it (and one that does not, refused by ethers: below).
          if (decoded !== undefined)
            expect([hexlify(decoded[0]), decoded[1]], callData).to.deep.equal(ethersResolve(callData));
        },
      ),
      { numRuns: 1000 },
    );
    expect(fast).to.equal(300);
  });

  it("encodes every record answer as ethers does, for well-formed and malformed calls", () => {
    fc.assert(
      fc.property(anyRecordCall, owner, (call, who) => {
        const expected = referenceAnswer(call, who);
        expect(answerRecord(call, who), call).to.equal(expected);
      }),
      { numRuns: 800 },
    );
    fc.assert(
      fc.property(mutated(recordCall), owner, (call, who) => {
        const expected = outcome(() => referenceAnswer(call, who));
        expect(
          outcome(() => answerRecord(call, who)),
          call,
        ).to.equal(expected);
      }),
      { numRuns: 800 },
    );
    // Multicalls as ethers encodes them and as anyone could change them: answered, or refused, as ethers would.
    fc.assert(
      fc.property(
        mutated(fc.array(recordCall, { maxLength: 4 }).map((c) => RECORDS.encodeFunctionData("multicall", [c]))),
        owner,
        (call, who) => {
          const expected = outcome(() => referenceAnswer(call, who));
          expect(
            outcome(() => answerRecord(call, who)),
            call,
          ).to.equal(expected);
        },
      ),
      { numRuns: 800 },
    );
  });

  it("signs the digest ethers computes and encodes the answer as ethers' AbiCoder does", async () => {
    const keys = [1, 2, 3].map((i) => `0x${i.toString(16).padStart(2, "0").repeat(32)}`);
    const signers = keys.map((k) => createCcipSigner(testCustodySigner(k)));
    const target = fc
      .tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.constantFrom("lower", "checksum", "upper"))
      .map(([bytes, spelling]) => {
        const hex = hexlify(bytes);
        return spelling === "lower"
          ? hex
          : spelling === "checksum"
            ? getAddress(hex)
            : `0x${hex.slice(2).toUpperCase()}`;
      });
    const expires = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 32 }),
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2 }),
        target,
        expires,
        hexBytes(200),
        hexBytes(200),
        async (k, to, exp, request, result) => {
          const data = await signers[k]!.signResponse(to, exp, request, result);
          expect(data).to.equal(signCcipResponse(new SigningKey(keys[k]!), to, exp, request, result));
          const [echoed, until, sig] = abi.decode(["bytes", "uint64", "bytes"], data) as unknown as [
            string,
            bigint,
            string,
          ];
          expect([echoed, until]).to.deep.equal([result, BigInt(exp)]);
          expect(recoverAddress(ccipSignatureHash(to, exp, request, result), sig)).to.equal(signers[k]!.address);
        },
      ),
      { numRuns: 200 },
    );
  });
});
