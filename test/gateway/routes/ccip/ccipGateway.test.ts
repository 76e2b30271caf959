import { expect } from "chai";
import { testCustodySigner } from "../../../helpers/keySigners";
import request from "supertest";
import type { TrustProxy } from "../../../../gateway/config/trustProxy";
import pino from "pino";
import {
  AbiCoder,
  Interface,
  Wallet,
  ZeroAddress,
  ZeroHash,
  concat,
  dnsEncode,
  keccak256,
  namehash,
  recoverAddress,
  toUtf8Bytes,
} from "ethers";
import golden from "../../../vectors/addresses.json";
import { ccipSignatureHash } from "../../../../gateway/ens/ccipSignature";
import { type CcipSigner, createCcipSigner } from "../../../../gateway/ens/ccipSigner";
import { createCcipService } from "../../../../gateway/ens/ccipService";
import { RECORDS } from "../../../../gateway/ens/records";
import { BUILT_IN_PROVIDERS } from "../../../../gateway/identity/userId";
import { createCcipHandler } from "../../../../gateway/routes/ccip/ccipHandler";
import { createProcessLimits } from "../../../../gateway/limits/processLimits";

const abi = AbiCoder.defaultAbiCoder();
const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RESOLVER = "0x00000000000000000000000000000000000000e5";
const KEY = Wallet.createRandom();
const ALICE = golden.vectors.find((v) => v.input === "github:alice")!.kernel;
const T0 = new Date("2026-11-22T12:00:00Z");

/** The gateway over a fixed clock, counting signatures so cache hits are visible. */
function gateway(options: { requestsPerMinute?: number; resolver?: string; trustProxy?: TrustProxy } = {}) {
  let clock = T0;
  let signatures = 0;
  const real = createCcipSigner(testCustodySigner(KEY.privateKey));
  const signer: CcipSigner = {
    address: real.address,
    signResponse: (...args) => {
      signatures++;
      return real.signResponse(...args);
    },
  };
  const service = createCcipService({
    domain: "idwallet.eth",
    kernelFactory: golden.kernelFactory,
    signer,
    ttlSeconds: 300,
    refreshMarginSeconds: 60,
    clock: () => clock,
    resolver: options.resolver,
    hasNames: (p) => (BUILT_IN_PROVIDERS as readonly string[]).includes(p),
  });
  const handler = createCcipHandler({
    answer: service.answer,
    clock: () => clock,
    refreshMarginSeconds: 60,
    requestsPerMinute: options.requestsPerMinute ?? 1000,
    limits: createProcessLimits(),
    trustProxy: options.trustProxy ?? false,
    logger: pino({ level: "silent" }),
  });
  return { handler, signatures: () => signatures, setClock: (d: Date) => (clock = d) };
}

/** The callData an OffchainLookup carries for `record` of `name`. */
const lookup = (name: string, record: string) => RESOLVE.encodeFunctionData("resolve", [dnsEncode(name), record]);
const addrCall = (name: string) => RECORDS.encodeFunctionData("addr(bytes32)", [namehash(name)]);
const coinCall = (name: string, coinType: bigint) =>
  RECORDS.encodeFunctionData("addr(bytes32,uint256)", [namehash(name), coinType]);
const textCall = (name: string, key: string) => RECORDS.encodeFunctionData("text", [namehash(name), key]);

/** Decodes a gateway answer and checks its signature; returns the record result. */
function verified(data: string, callData: string): { result: string; expires: bigint } {
  const [result, expires, sig] = abi.decode(["bytes", "uint64", "bytes"], data) as unknown as [string, bigint, string];
  expect(recoverAddress(ccipSignatureHash(RESOLVER, expires, callData, result), sig)).to.equal(KEY.address);
  return { result, expires };
}

const get = (handler: ReturnType<typeof gateway>["handler"], callData: string) =>
  request(handler).get(`/ccip/${RESOLVER}/${callData.toLowerCase()}.json`);

describe("CCIP-read gateway", () => {
  const name = "alice.github.idwallet.eth";

  it("answers addr(bytes32) over GET with a signed wallet address and a Cache-Control up to the expiry", async () => {
    const { handler } = gateway();
    const callData = lookup(name, addrCall(name));
    const res = await get(handler, callData).expect(200);
    expect(res.headers["cache-control"]).to.equal("public, max-age=240");
    expect(res.headers["access-control-allow-origin"]).to.equal("*");
    const { result, expires } = verified(res.body.data, callData);
    expect(expires).to.equal(BigInt(T0.getTime() / 1000 + 300));
    expect(abi.decode(["address"], result)[0]).to.equal(ALICE);
  });

  it("answers the same over POST {sender, data}", async () => {
    const { handler } = gateway();
    const callData = lookup(name, addrCall(name));
    const res = await request(handler).post("/ccip").send({ sender: RESOLVER, data: callData }).expect(200);
    expect(abi.decode(["address"], verified(res.body.data, callData).result)[0]).to.equal(ALICE);
  });

  it("gives the wallet for coin type 60, every registry EVM chain and the default EVM type; empty bytes otherwise", async () => {
    const { handler } = gateway();
    for (const [coinType, expected] of [
      [60n, ALICE.toLowerCase()],
      [0x80000000n | 137n, ALICE.toLowerCase()],
      [0x80000000n | 8453n, ALICE.toLowerCase()],
      [0x80000000n, ALICE.toLowerCase()],
      [0n, "0x"],
      [0x80000000n | 999999n, "0x"],
    ] as const) {
      const callData = lookup(name, coinCall(name, coinType));
      const res = await get(handler, callData).expect(200);
      expect(abi.decode(["bytes"], verified(res.body.data, callData).result)[0], String(coinType)).to.equal(expected);
    }
  });

  it("answers the documented text keys, '' for unknown ones, and an empty contenthash", async () => {
    const { handler } = gateway();
    for (const [key, expected] of [
      ["com.github", "alice"],
      ["idwallet.userId", "github:alice"],
      ["description", "idwallet wallet of github:alice"],
      ["email", ""],
      ["constructor", ""],
      ["no.such.key", ""],
    ]) {
      const callData = lookup(name, textCall(name, key!));
      const res = await get(handler, callData).expect(200);
      expect(abi.decode(["string"], verified(res.body.data, callData).result)[0], key).to.equal(expected);
    }
    const contenthash = lookup(name, RECORDS.encodeFunctionData("contenthash", [namehash(name)]));
    const res = await get(handler, contenthash).expect(200);
    expect(abi.decode(["bytes"], verified(res.body.data, contenthash).result)[0]).to.equal("0x");
  });

  it("answers each item of a multicall on its own", async () => {
    const { handler } = gateway();
    const callData = lookup(
      name,
      RECORDS.encodeFunctionData("multicall", [[addrCall(name), textCall(name, "com.github"), "0xdeadbeef"]]),
    );
    const res = await get(handler, callData).expect(200);
    const [items] = abi.decode(["bytes[]"], verified(res.body.data, callData).result) as unknown as [string[]];
    expect(abi.decode(["address"], items[0]!)[0]).to.equal(ALICE);
    expect(abi.decode(["string"], items[1]!)[0]).to.equal("alice");
    expect(items[2]).to.equal("0x");
  });

  it("signs no answer for one name under another name's node (a caller keyed on nodes would take it for that name's)", async () => {
    const { handler } = gateway();
    const bob = "bob.github.idwallet.eth";
    const ask = async (record: string) => {
      const callData = lookup(name, record);
      return verified((await get(handler, callData).expect(200)).body.data, callData).result;
    };
    expect(abi.decode(["address"], await ask(addrCall(bob)))[0]).to.equal(ZeroAddress);
    expect(abi.decode(["bytes"], await ask(coinCall(bob, 60n)))[0]).to.equal("0x");
    expect(abi.decode(["string"], await ask(textCall(bob, "com.github")))[0]).to.equal("");
    const [items] = abi.decode(
      ["bytes[]"],
      await ask(RECORDS.encodeFunctionData("multicall", [[addrCall(name), addrCall(bob)]])),
    ) as unknown as [string[]];
    expect(items.map((item) => abi.decode(["address"], item)[0])).to.deep.equal([ALICE, ZeroAddress]);
    // Spelled in another layout (ethers' decoder, not the fast path), the same.
    const padded = `${addrCall(bob)}${"00".repeat(32)}`;
    expect(abi.decode(["address"], await ask(padded))[0]).to.equal(ZeroAddress);
  });

  it("answers 'no record' for names without a wallet: outside the domain, unknown provider", async () => {
    const { handler } = gateway();
    for (const other of ["alice.github.other.eth", "alice.myspace.idwallet.eth", "idwallet.eth"]) {
      const callData = lookup(other, addrCall(other));
      const res = await get(handler, callData).expect(200);
      expect(abi.decode(["address"], verified(res.body.data, callData).result)[0], other).to.equal(
        "0x0000000000000000000000000000000000000000",
      );
      const coin = lookup(other, coinCall(other, 60n));
      const coinRes = await get(handler, coin).expect(200);
      expect(abi.decode(["bytes"], verified(coinRes.body.data, coin).result)[0]).to.equal("0x");
    }
  });

  it("answers jack-dorsey.x with x:jack_dorsey's wallet; the name jack_dorsey.x, and x:jack-dorsey, have none", async () => {
    const { handler } = gateway();
    const jack = golden.vectors.find((v) => v.userId === "x:jack_dorsey")!.kernel;
    // By hand: ethers' dnsEncode and namehash refuse names that are not ENSIP-15, which a client may still send.
    const wire = (n: string) =>
      `0x${n
        .split(".")
        .map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)]).toString("hex"))
        .join("")}00`;
    // ENSIP-1 namehash of the labels as written.
    const node = (n: string) =>
      n
        .split(".")
        .reverse()
        .reduce((parent, label) => keccak256(concat([parent, keccak256(toUtf8Bytes(label))])), ZeroHash);
    const ask = async (n: string) => {
      const callData = RESOLVE.encodeFunctionData("resolve", [
        wire(n),
        RECORDS.encodeFunctionData("addr(bytes32)", [node(n)]),
      ]);
      const res = await get(handler, callData).expect(200);
      return abi.decode(["address"], verified(res.body.data, callData).result)[0] as string;
    };
    expect(await ask("jack-dorsey.x.idwallet.eth")).to.equal(jack);
    const text = lookup("jack-dorsey.x.idwallet.eth", textCall("jack-dorsey.x.idwallet.eth", "com.twitter"));
    const res = await get(handler, text).expect(200);
    expect(abi.decode(["string"], verified(res.body.data, text).result)[0]).to.equal("jack_dorsey");
    // "_" after a label's first character is not ENSIP-15; "_jack" normalizes but is nobody's own name.
    for (const other of ["jack_dorsey.x.idwallet.eth", "_jack.x.idwallet.eth", "jack.dorsey.x.idwallet.eth"]) {
      expect(await ask(other), other).to.equal("0x0000000000000000000000000000000000000000");
    }
  });

  it("refuses malformed lookups with 4xx problems", async () => {
    const { handler } = gateway();
    const good = lookup(name, addrCall(name));
    const cases: [request.Test, number, string][] = [
      [request(handler).get(`/ccip/0x1234/${good}.json`), 400, "INVALID_SENDER"],
      [request(handler).get(`/ccip/${RESOLVER}/0xzz.json`), 400, "INVALID_CALL_DATA"],
      [request(handler).get(`/ccip/${RESOLVER}/0x12345678.json`), 400, "UNSUPPORTED_CALL"],
      [
        request(handler).get(
          `/ccip/${RESOLVER}/${RESOLVE.encodeFunctionData("resolve", ["0x05616c6963", addrCall(name)])}.json`,
        ),
        400,
        "INVALID_NAME",
      ],
      [request(handler).get(`/ccip/${RESOLVER}/${lookup(name, "0x3b3b57de12")}.json`), 400, "INVALID_CALL_DATA"],
      [request(handler).get(`/ccip/${RESOLVER}/%E0%A4%A.json`), 400, "INVALID_REQUEST"],
      [request(handler).get("/ccip/nothing"), 404, "NOT_FOUND"],
      [request(handler).post("/ccip").set("Content-Type", "application/json").send("{bad"), 400, "MALFORMED_JSON"],
      [request(handler).post("/ccip").send({ sender: 1 }), 400, "INVALID_REQUEST"],
      [
        request(handler)
          .post("/ccip")
          .send({ sender: RESOLVER, data: `0x${"00".repeat(70_000)}` }),
        413,
        "PAYLOAD_TOO_LARGE",
      ],
    ];
    for (const [req, status, code] of cases) {
      const res = await req;
      expect(res.status, code).to.equal(status);
      expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
      expect(res.body.code).to.equal(code);
    }
  });

  it("serves a repeated lookup from the cache until shortly before it expires", async () => {
    const { handler, signatures, setClock } = gateway();
    const callData = lookup(name, addrCall(name));
    const first = await get(handler, callData).expect(200);
    const again = await request(handler)
      .get(`/ccip/${RESOLVER.toUpperCase().replace("0X", "0x")}/${callData}.json`)
      .expect(200);
    expect(again.body.data).to.equal(first.body.data);
    expect(signatures()).to.equal(1);
    setClock(new Date(T0.getTime() + 239_000));
    expect((await get(handler, callData)).headers["cache-control"]).to.equal("public, max-age=1");
    setClock(new Date(T0.getTime() + 241_000));
    const refreshed = await get(handler, callData).expect(200);
    expect(refreshed.body.data).to.not.equal(first.body.data);
    expect(signatures()).to.equal(2);
  });

  it("limits requests per IP with 429 and Retry-After", async () => {
    const { handler } = gateway({ requestsPerMinute: 2 });
    const callData = lookup(name, addrCall(name));
    await get(handler, callData).expect(200);
    await get(handler, callData).expect(200);
    const limited = await get(handler, callData).expect(429);
    expect(limited.body.code).to.equal("RATE_LIMITED");
    expect(Number(limited.headers["retry-after"])).to.be.within(1, 60);
  });

  it("behind TRUST_PROXY=1, gives each X-Forwarded-For client its own bucket; without it, ignores the header", async () => {
    const callData = lookup(name, addrCall(name));
    const from = (handler: ReturnType<typeof gateway>["handler"], ip: string) =>
      get(handler, callData).set("X-Forwarded-For", ip);
    const proxied = gateway({ requestsPerMinute: 1, trustProxy: 1 }).handler;
    await from(proxied, "198.51.100.7").expect(200);
    await from(proxied, "198.51.100.8").expect(200);
    expect((await from(proxied, "198.51.100.7").expect(429)).body.code).to.equal("RATE_LIMITED");
    // A client cannot pick a new bucket by forging the header when no proxy is trusted.
    const direct = gateway({ requestsPerMinute: 1 }).handler;
    await from(direct, "198.51.100.7").expect(200);
    await from(direct, "198.51.100.8").expect(429);
  });

  it("counts two IPv6 clients of one /64 (forwarded by a trusted proxy) in one bucket", async () => {
    const { handler } = gateway({ requestsPerMinute: 1, trustProxy: ["127.0.0.1", "::1"] });
    const callData = lookup(name, addrCall(name));
    await get(handler, callData).set("X-Forwarded-For", "2001:db8:1:2::1").expect(200);
    await get(handler, callData).set("X-Forwarded-For", "2001:db8:1:2:ffff:ffff:ffff:fffe").expect(429);
    await get(handler, callData).set("X-Forwarded-For", "2001:db8:1:3::1").expect(200);
  });

  it("answers CORS preflight", async () => {
    const { handler } = gateway();
    const res = await request(handler).options("/ccip").expect(204);
    expect(res.headers["access-control-allow-methods"]).to.include("POST");
    expect(res.headers["access-control-allow-headers"]).to.include("Content-Type");
  });

  it("answers only the configured resolver when one is set", async () => {
    const { handler } = gateway({ resolver: "0x00000000000000000000000000000000000000aa" });
    const res = await get(handler, lookup(name, addrCall(name))).expect(400);
    expect(res.body.code).to.equal("UNKNOWN_RESOLVER");
  });
});
