import { expect } from "chai";
import request from "supertest";
import { Interface, Wallet, dnsEncode, namehash } from "ethers";
import golden from "../../../vectors/addresses.json";
import { createCcipHandler } from "../../../../gateway/routes/ccip/ccipHandler";
import { createCcipService } from "../../../../gateway/ens/ccipService";
import { type CcipSigner, createCcipSigner } from "../../../../gateway/ens/ccipSigner";
import { MAX_LOOKUP_CALL_BYTES, MAX_LOOKUP_RECORD_CALLS } from "../../../../gateway/ens/lookupLimits";
import { BUILT_IN_PROVIDERS } from "../../../../gateway/identity/userId";
import { createProcessLimits } from "../../../../gateway/limits/processLimits";
import { createSharedLimits } from "../../../../gateway/limits/sharedLimits";
import type { LimitCountersRepository } from "../../../../gateway/limits/limitCountersRepository";
import { testCustodySigner } from "../../../helpers/keySigners";
import { capturingLogger } from "../../../helpers/capturingLogger";
import { type TestStore, openTestStore } from "../../storage/builders";

const RESOLVE = new Interface(["function resolve(bytes name, bytes data) view returns (bytes)"]);
const RECORDS = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function text(bytes32 node, string key) view returns (string)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);
const RESOLVER = "0x00000000000000000000000000000000000000e5";
const KEY = Wallet.createRandom();

const addrLookup = (name: string) =>
  RESOLVE.encodeFunctionData("resolve", [dnsEncode(name), RECORDS.encodeFunctionData("addr", [namehash(name)])]);
const multicallLookup = (name: string, items: number, key = "description") =>
  RESOLVE.encodeFunctionData("resolve", [
    dnsEncode(name),
    RECORDS.encodeFunctionData("multicall", [
      Array.from({ length: items }, () => RECORDS.encodeFunctionData("text", [namehash(name), key])),
    ]),
  ]);

/** A gateway whose answers are counted per client in `counters` (a database), and whose signatures are counted. */
function gateway(options: {
  counters: LimitCountersRepository;
  answersPerMinute?: number;
  answersPerNetworkPerMinute?: number;
  cacheBytes?: number;
}) {
  let signatures = 0;
  const real = createCcipSigner(testCustodySigner(KEY.privateKey));
  const signer: CcipSigner = { address: real.address, signResponse: (...a) => (signatures++, real.signResponse(...a)) };
  const clock = () => new Date("2026-11-28T12:00:00Z");
  const service = createCcipService({
    domain: "idwallet.eth",
    kernelFactory: golden.kernelFactory,
    signer,
    ttlSeconds: 300,
    refreshMarginSeconds: 60,
    clock,
    hasNames: (p) => (BUILT_IN_PROVIDERS as readonly string[]).includes(p),
    cacheBytes: options.cacheBytes,
  });
  const lines: string[] = [];
  const handler = createCcipHandler({
    answer: service.answer,
    clock,
    refreshMarginSeconds: 60,
    requestsPerMinute: 10_000,
    limits: createProcessLimits(),
    answerLimits: createSharedLimits({ counters: options.counters, clock }),
    answersPerMinute: options.answersPerMinute ?? 10_000,
    answersPerNetworkPerMinute: options.answersPerNetworkPerMinute ?? 100_000,
    trustProxy: 1,
    logger: capturingLogger(lines),
  });
  const logs = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });
  return { handler, signatures: () => signatures, logs };
}

const post = (handler: ReturnType<typeof gateway>["handler"], data: string) =>
  request(handler).post("/ccip").send({ sender: RESOLVER, data });

describe("CCIP-read gateway: what one unauthenticated lookup may cost", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(() => store.database.close());

  it(`an outsider asks a multicall of ${MAX_LOOKUP_RECORD_CALLS + 1} records: 400 LOOKUP_TOO_LARGE, nothing signed`, async () => {
    const { handler, signatures } = gateway({ counters: store.repos.limitCounters });
    const name = "alice.github.idwallet.eth";
    expect((await post(handler, multicallLookup(name, MAX_LOOKUP_RECORD_CALLS, "a"))).status).to.equal(200);
    const res = await post(handler, multicallLookup(name, MAX_LOOKUP_RECORD_CALLS + 1, "a"));
    expect(res.status).to.equal(400);
    expect(res.body).to.include({
      code: "LOOKUP_TOO_LARGE",
      detail: `A lookup may ask at most ${MAX_LOOKUP_RECORD_CALLS} records in a multicall`,
    });
    expect(signatures()).to.equal(1);
  });

  it("an outsider sends call data over the cap, by GET or POST: 400 LOOKUP_TOO_LARGE (a body past its limit: 413)", async () => {
    const { handler, signatures } = gateway({ counters: store.repos.limitCounters });
    const tooLarge = `${addrLookup("alice.github.idwallet.eth")}${"00".repeat(MAX_LOOKUP_CALL_BYTES)}`;
    const byPost = await post(handler, tooLarge);
    expect(byPost.status).to.equal(400);
    expect(byPost.body).to.include({
      code: "LOOKUP_TOO_LARGE",
      detail: `A lookup's call data may be at most ${MAX_LOOKUP_CALL_BYTES} bytes`,
    });
    // By GET the same does not even reach the gateway: node refuses a request line of 32 kB (431).
    const byGet = await request(handler).get(`/ccip/${RESOLVER}/${tooLarge}.json`);
    expect(byGet.status).to.be.oneOf([400, 431]);
    const huge = await post(handler, `0x${"00".repeat(64 * 1024)}`);
    expect(huge.status).to.equal(413);
    expect(huge.body.code).to.equal("PAYLOAD_TOO_LARGE");
    expect(signatures()).to.equal(0);
  });

  it("an outsider asks many distinct large lookups: the cache keeps what fits its bytes, the oldest answers go first", async () => {
    // Each answer of 40 description records is about 20,000 characters: a 100 kB cache holds four or five.
    const { handler, signatures } = gateway({ counters: store.repos.limitCounters, cacheBytes: 100_000 });
    const lookups = Array.from({ length: 12 }, (_, i) => multicallLookup(`user${i}.github.idwallet.eth`, 40));
    for (const data of lookups) expect((await post(handler, data)).status).to.equal(200);
    expect(signatures()).to.equal(12);
    await post(handler, lookups[11]!);
    expect(signatures(), "the newest answer is still cached").to.equal(12);
    await post(handler, lookups[0]!);
    expect(signatures(), "the oldest answer was let go").to.equal(13);
  });

  it("a client's computed answers are counted across processes on one database; answers from the cache are not", async () => {
    // Two gateways on one database stand for two processes (cluster workers, or instances).
    const first = gateway({ counters: store.repos.limitCounters, answersPerMinute: 5 });
    const second = gateway({ counters: store.repos.limitCounters, answersPerMinute: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await post(first.handler, addrLookup(`a${i}.github.idwallet.eth`))).status);
    for (let i = 3; i < 6; i++)
      statuses.push((await post(second.handler, addrLookup(`a${i}.github.idwallet.eth`))).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
    const refused = await post(first.handler, addrLookup("a9.github.idwallet.eth"));
    expect(refused.status).to.equal(429);
    expect(refused.body.code).to.equal("RATE_LIMITED");
    expect(Number(refused.headers["retry-after"])).to.be.within(1, 60);
    // A name it asked before is answered from the process's cache, which costs no signature and counts nothing.
    expect((await post(first.handler, addrLookup("a0.github.idwallet.eth"))).status).to.equal(200);
  });

  it("an outsider rotates /64s within its /48: each /64 under its limit, the network's answers counted in total", async () => {
    const { handler } = gateway({
      counters: store.repos.limitCounters,
      answersPerMinute: 2,
      answersPerNetworkPerMinute: 5,
    });
    const from = (i: number) =>
      request(handler)
        .post("/ccip")
        .set("X-Forwarded-For", `2001:db8:77:${i.toString(16)}::1`)
        .send({ sender: RESOLVER, data: addrLookup(`n${i}.github.idwallet.eth`) });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await from(i)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429, 429, 429]);
    // Another network is not held back by it.
    const other = await request(handler)
      .post("/ccip")
      .set("X-Forwarded-For", "2001:db8:78::1")
      .send({ sender: RESOLVER, data: addrLookup("m0.github.idwallet.eth") });
    expect(other.status).to.equal(200);
  });

  it("a burst of one turn is counted in one transaction, each lookup answered in order", async () => {
    let statements = 0;
    const counters: LimitCountersRepository = {
      hit: (...a) => store.repos.limitCounters.hit(...a),
      hitMany: (...a) => (statements++, store.repos.limitCounters.hitMany(...a)),
      deleteEnded: (...a) => store.repos.limitCounters.deleteEnded(...a),
    };
    const { handler } = gateway({ counters, answersPerMinute: 20 });
    const datas = Array.from({ length: 30 }, (_, i) => addrLookup(`b${i}.github.idwallet.eth`));
    const statuses = (await Promise.all(datas.map((data) => post(handler, data)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(20);
    expect(statuses.filter((s) => s === 429)).to.have.length(10);
    expect(statements).to.be.below(30);
  });

  it("a database that cannot count: names still resolve (the per-process limit holds), and it is logged once", async () => {
    const broken: LimitCountersRepository = {
      hit: () => Promise.reject(new Error("database unavailable")),
      hitMany: () => Promise.reject(new Error("database unavailable")),
      deleteEnded: () => Promise.reject(new Error("database unavailable")),
    };
    const { handler, logs } = gateway({ counters: broken, answersPerMinute: 1 });
    for (let i = 0; i < 3; i++) {
      expect((await post(handler, addrLookup(`c${i}.github.idwallet.eth`))).status).to.equal(200);
    }
    expect(logs().filter((l) => l.level === 40 && /not counted/.test(String(l.msg)))).to.have.length(1);
  });
});
