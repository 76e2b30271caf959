import { expect } from "chai";
import { gzipSync } from "node:zlib";
import { JsonRpcProvider } from "ethers";
import type { ChainClient } from "../../../gateway/chains/clients";
import { hs256Provider } from "../../helpers/providerProofs";
import { buildTestApp } from "../../helpers/testApp";
import { closeAll, expectSameAnswers, listenAsPair, sendToBoth } from "../../helpers/fastPathPair";
import type { RawAnswer, RawRequest } from "../../robustness/lib/rawHttp";

// POST /v1/kernel/tx and GET /v1/kernel/tx/{id} run on a node:http fast path in front of the express app, which
// still has the routes. Every request here goes to both, the fast path and the express app alone, built from the same
// parts over one database: the answers (status, every header but Date, the body), the access log and the metrics must
// be the same, once each side's request ids (fresh UUIDs) are read as placeholders.

const BODY_LIMIT = "1kb";
const DEADLINE_MS = 5000;
const TARGET = "0x000000000000000000000000000000000000dEaD";
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

/** The fast path and the express app alone over the same dependencies, each on its own loopback port. */
async function startPair(overrides: Record<string, unknown> = {}) {
  const built = buildTestApp(
    { bodyLimit: BODY_LIMIT, transactions: { waitTimeoutMs: 200 }, ...overrides },
    { chains: new Map([["localhost", idleChain("localhost", 31337)]]), txChains: ["localhost"] },
  );
  const { app, token } = await built.appWithToken("acme app", true);
  await (await built.repositories).providers.register(app.id, "acme", hs256Provider("a".repeat(40)));
  const { fast, reference, passedOn, servers } = await listenAsPair(built.deps, built.config.corsOrigins);
  /** `request` for one side: its Idempotency-Key made that side's own, so the two never share a key. */
  const forSide = (request: RawRequest, suffix: string): RawRequest => ({
    ...request,
    headers: (request.headers ?? []).map(([name, value]) =>
      name.toLowerCase() === "idempotency-key" ? [name, `${value}${suffix}`] : [name, value],
    ),
  });
  return {
    built,
    token,
    fast,
    reference,
    passedOn,
    both: (request: RawRequest) =>
      sendToBoth(
        servers.map((s) => s.port),
        request,
        DEADLINE_MS,
        (r, index) => forSide(r, index === 0 ? "-f" : "-r"),
      ),
    close: async () => {
      await closeAll(servers);
      built.close();
    },
  };
}
type Pair = Awaited<ReturnType<typeof startPair>>;

/** What must be equal: the status, the headers but Date and the ETag (of a body with a fresh id), the body. */
const comparable = (answer: RawAnswer) => {
  const { date: _date, etag: _etag, ...headers } = answer.headers;
  return {
    status: answer.status,
    headers: JSON.parse(JSON.stringify(headers).replace(UUID, "<id>")) as unknown,
    body: answer.body.toString("latin1").replace(UUID, "<id>"),
  };
};

const TYPE: [string, string] = ["Content-Type", "application/json"];
const call = { userId: "acme:alice", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: "" };
const json = (value: unknown) => JSON.stringify(value);

/** Sends every case to both and compares answers, access lines (ids as placeholders) and request counts. */
const expectSame = (pair: Pair, cases: readonly (readonly [string, RawRequest])[]) =>
  expectSameAnswers(pair, cases, {
    comparable,
    counted: /^idwallet_http_request_duration_seconds_count/,
    normalize: (line) => line.replace(UUID, "<id>"),
  });

describe("POST /v1/kernel/tx and GET /v1/kernel/tx/{id} fast path: answers as the express routes do", () => {
  it("accepts, refuses and limits requests, replays an Idempotency-Key, exactly as the express route", async () => {
    const pair = await startPair();
    const auth: [string, string] = ["Authorization", `Bearer ${pair.token}`];
    const post = (body: Buffer | string, headers: [string, string][] = [TYPE, auth]) =>
      ({ method: "POST", target: "/v1/kernel/tx", headers, body }) satisfies RawRequest;
    const answers = await expectSame(pair, [
      ["a request", post(json(call))],
      ["two calls", post(json({ ...call, to: [TARGET, TARGET], value: ["1", "0x2"], data: ["0x", "0xabcd"] }))],
      ["a charset", post(json(call), [["Content-Type", "application/json; charset=utf-8"], auth])],
      ["with an Idempotency-Key", post(json(call), [TYPE, auth, ["Idempotency-Key", "k1"]])],
      ["the key again", post(json(call), [TYPE, auth, ["Idempotency-Key", "k1"]])],
      ["the key with another request", post(json({ ...call, value: ["5"] }), [TYPE, auth, ["Idempotency-Key", "k1"]])],
      ["a key of a control character", post(json(call), [TYPE, auth, ["Idempotency-Key", "a\tb"]])],
      ["lengths that differ", post(json({ ...call, value: ["0", "1"] }))],
      ["no user id", post(json({ ...call, userId: undefined }))],
      ["an invalid user id", post(json({ ...call, userId: "nocolon" }))],
      ["an unknown chain", post(json({ ...call, chain: "nowhere" }))],
      ["a delegatecall not granted", post(json({ ...call, delegatecall: 1 }))],
      ["value in a delegatecall", post(json({ ...call, delegatecall: 1, value: ["1"] }))],
      ["malformed JSON", post("{userId:")],
      ["an empty body", post("")],
      ["an array", post("[]")],
      ["a body over the limit", post(json({ ...call, data: [`0x${"ab".repeat(1000)}`] }))],
      ["no token", post(json(call), [TYPE])],
      ["a token that is no JWT", post(json(call), [TYPE, ["Authorization", "Bearer nope"]])],
      ["an Origin", post(json(call), [TYPE, auth, ["Origin", "https://a.example"]])],
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([
      202, 202, 202, 202, 202, 409, 400, 400, 400, 400, 400, 403, 400, 400, 400, 400, 413, 401, 401, 202,
    ]);
    expect(answers[4]!.headers["idempotent-replayed"]).to.equal("true");
    expect(answers[0]!.headers.location).to.equal(`/v1/kernel/tx/${JSON.parse(answers[0]!.body.toString()).id}`);
    await pair.close();
  });

  it("answers a request's status, waiting for it when asked, exactly as the express route", async () => {
    const pair = await startPair();
    const auth: [string, string] = ["Authorization", `Bearer ${pair.token}`];
    const [accepted] = await pair.both({
      method: "POST",
      target: "/v1/kernel/tx",
      headers: [TYPE, auth],
      body: json(call),
    });
    const id = JSON.parse(accepted.body.toString()).id as string;
    const get = (target: string, headers: [string, string][] = [auth]) =>
      ({ method: "GET", target, headers }) satisfies RawRequest;
    const answers = await expectSame(pair, [
      ["its status", get(`/v1/kernel/tx/${id}`)],
      ["waited for (it stays queued: no worker)", get(`/v1/kernel/tx/${id}?wait=true`)],
      ["wait=false", get(`/v1/kernel/tx/${id}?wait=false`)],
      ["a wait that is no boolean", get(`/v1/kernel/tx/${id}?wait=maybe`)],
      ["an unknown id", get("/v1/kernel/tx/00000000-0000-4000-8000-000000000000")],
      ["an id that is no UUID", get("/v1/kernel/tx/abc")],
      ["no token", get(`/v1/kernel/tx/${id}`, [])],
    ]);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 400, 404, 404, 401]);
    expect(JSON.parse(answers[0]!.body.toString())).to.include({ id, status: "queued" });
    await pair.close();
  });

  it("a body that stops short of its length gets the same 408 INCOMPLETE_BODY at the deadline, nothing stored", async () => {
    const pair = await startPair({ requestTimeoutMs: 300 });
    const auth: [string, string] = ["Authorization", `Bearer ${pair.token}`];
    const [answer] = await expectSame(pair, [
      [
        "a short body",
        { method: "POST", target: "/v1/kernel/tx", headers: [TYPE, auth, ["Content-Length", "100"]], body: '{"a":' },
      ],
    ]);
    expect([answer!.status, JSON.parse(answer!.body.toString()).code]).to.deep.equal([408, "INCOMPLETE_BODY"]);
    expect(await (await pair.built.repositories).transactions.countByStatus()).to.deep.equal([]);
    await pair.close();
  });

  it("passes on what it does not read itself: other routes and spellings, encodings, media types, conditional GETs, maintenance", async () => {
    const pair = await startPair();
    const auth: [string, string] = ["Authorization", `Bearer ${pair.token}`];
    const body = json(call);
    const passed: RawRequest[] = [
      { method: "POST", target: "/v1/kernel/tx?x=1", headers: [TYPE, auth], body },
      { method: "POST", target: "/v1/kernel/tx/", headers: [TYPE, auth], body },
      { method: "POST", target: "/V1/kernel/tx", headers: [TYPE, auth], body },
      {
        method: "POST",
        target: "/v1/kernel/tx",
        headers: [TYPE, auth, ["Content-Encoding", "gzip"]],
        body: gzipSync(body),
      },
      { method: "POST", target: "/v1/kernel/tx", headers: [["Content-Type", "text/plain"], auth], body },
      { method: "POST", target: "/v1/kernel/tx", headers: [auth], body },
      {
        method: "POST",
        target: "/v1/kernel/tx",
        headers: [["Content-Type", "application/json; charset=utf-16"], auth],
        body,
      },
      { method: "PUT", target: "/v1/kernel/tx", headers: [TYPE, auth], body },
      { method: "GET", target: "/v1/kernel/tx", headers: [auth] },
      { method: "GET", target: "/v1/kernel/tx/a%62c", headers: [auth] },
      { method: "GET", target: "/v1/kernel/tx/abc/", headers: [auth] },
      { method: "HEAD", target: "/v1/kernel/tx/abc", headers: [auth] },
      { method: "GET", target: "/v1/kernel/tx/abc", headers: [auth, ["If-None-Match", '"x"']] },
      { method: "POST", target: "/v1/base/tx", headers: [TYPE, auth], body },
    ];
    const statuses: number[] = [];
    for (const request of passed) {
      const headers = [...(request.headers ?? []), ["X-Request-Id", "passed-on"] as [string, string]];
      const [fast, reference] = await pair.both({ ...request, headers });
      expect(comparable(fast), `${request.method} ${request.target}`).to.deep.equal(comparable(reference));
      statuses.push(fast.status);
    }
    // Express answers them as the routes are declared: a JSON body as text/plain or without Content-Type 415, a
    // method the path does not take (PUT) 405 with Allow, an id no request has 404.
    expect(statuses).to.deep.equal([202, 202, 202, 202, 415, 415, 400, 405, 200, 404, 404, 404, 404, 200]);
    await pair.built.setStoredMaintenance(true);
    const [inMaintenance] = await pair.both({ method: "POST", target: "/v1/kernel/tx", headers: [TYPE, auth], body });
    expect(inMaintenance.status).to.equal(503);
    expect(pair.passedOn).to.deep.equal([...passed.map((r) => `${r.method} ${r.target}`), "POST /v1/kernel/tx"]);
    await pair.close();
  });
});
