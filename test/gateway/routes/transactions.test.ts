import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { operationBound } from "../../../gateway/userop/requestBounds";
import { buildTestApp } from "../../helpers/testApp";
import { hs256Provider } from "../../helpers/providerProofs";

const SECRET = "acme-proof-secret-of-at-least-32-chars";
const TARGET = "0x000000000000000000000000000000000000dEaD";

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

describe("API: POST /v1/kernel/tx and GET /v1/kernel/tx/{id} (acceptance, validation, idempotency)", () => {
  const setup = async (txChains = ["localhost"], transactions: Record<string, number> = {}) => {
    const chains = new Map([
      ["localhost", idleChain("localhost", 31337)],
      ["matic", idleChain("matic", 137)],
      ["eth", idleChain("eth", 1)],
    ]);
    const built = buildTestApp({ transactions: { waitTimeoutMs: 300, ...transactions } }, { chains, txChains });
    const { app, token } = await built.appWithToken("acme app", true);
    await (await built.repositories).providers.register(app.id, "acme", hs256Provider(SECRET));
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      request(built.app)
        .post("/v1/kernel/tx")
        .set({ Authorization: `Bearer ${token}`, ...headers })
        .send({
          userId: "acme:alice",
          chain: "localhost",
          to: [TARGET],
          value: ["0"],
          data: ["0x"],
          auth: "",
          ...body,
        });
    return { ...built, token, post };
  };

  it("commits a request and answers 202 with its id, status queued, the canonical user id and the wallet", async () => {
    const { post, app, token, repositories, close } = await setup();
    const res = await post({
      userId: "ACME:alice",
      to: [TARGET, TARGET],
      value: ["10", "0x0a"],
      data: ["0x", "0xabcdef"],
    });
    expect(res.status).to.equal(202);
    expect(res.body).to.include({ status: "queued", userId: "acme:alice", chain: "localhost", error: null });
    expect(res.headers.location).to.equal(`/v1/kernel/tx/${res.body.id}`);
    const stored = (await (await repositories).transactions.find(res.body.id))!;
    expect(stored.calls).to.deep.equal([
      { to: TARGET, value: 10n, data: "0x" },
      { to: TARGET, value: 10n, data: "0xabcdef" },
    ]);
    expect(stored.sender).to.equal(res.body.sender);
    const status = await request(app).get(`/v1/kernel/tx/${res.body.id}`).set("Authorization", `Bearer ${token}`);
    expect(status.status).to.equal(200);
    expect(status.body).to.deep.include({ id: res.body.id, status: "queued", userOpHash: null, transactionHash: null });
    close();
  });

  it("answers a bounded wait with the current state when the request is not final yet", async () => {
    const { post, app, token, close } = await setup();
    const { body } = await post({});
    const started = Date.now();
    const res = await request(app).get(`/v1/kernel/tx/${body.id}?wait=true`).set("Authorization", `Bearer ${token}`);
    expect(res.body.status).to.equal("queued");
    expect(Date.now() - started).to.be.within(250, 5000);
    close();
  });

  it("refuses malformed requests with stable codes and stores nothing", async () => {
    const { post, repositories, close } = await setup();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ to: [TARGET], value: ["0", "1"], data: ["0x"] }, 400, "ARRAY_LENGTH_MISMATCH"],
      [{ to: [], value: [], data: [] }, 400, "INVALID_REQUEST"],
      [{ value: ["1.5"] }, 400, "INVALID_REQUEST"],
      [{ value: ["-1"] }, 400, "INVALID_REQUEST"],
      [{ value: [`0x1${"0".repeat(64)}`] }, 400, "INVALID_REQUEST"],
      [{ to: ["0x1234"] }, 400, "INVALID_REQUEST"],
      [{ data: ["0xabc"] }, 400, "INVALID_REQUEST"],
      [{ delegatecall: 2 }, 400, "INVALID_REQUEST"],
      [{ delegatecall: 1, value: ["1"] }, 400, "VALUE_IN_DELEGATECALL"],
      [{ userId: "nobody" }, 400, "INVALID_USER_ID"],
      [{ chain: "nowhere" }, 400, "UNKNOWN_CHAIN"],
      [{ chain: "eth" }, 400, "CHAIN_NOT_AVAILABLE"],
      [{ chain: "matic" }, 503, "TX_NOT_CONFIGURED"],
      [{ userId: "github:alice" }, 400, "NATIVE_LOGIN_UNAVAILABLE"],
    ];
    for (const [body, status, code] of cases) {
      const res = await post(body);
      expect([res.status, res.body.code], JSON.stringify(body)).to.deep.equal([status, code]);
      expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
    }
    const many = Array.from({ length: 17 }, () => TARGET);
    const tooMany = await post({ to: many, value: many.map(() => "0"), data: many.map(() => "0x") });
    expect([tooMany.status, tooMany.body.code]).to.deep.equal([400, "TOO_MANY_CALLS"]);
    const due = await (await repositories).transactions.due("localhost", new Date("2100-01-01"), 100);
    expect(due).to.have.length(0);
    close();
  });

  it("refuses call data no bundle could carry (over TX_MAX_CALL_DATA_BYTES, all calls together) and stores nothing", async () => {
    const { post, app, token, repositories, close } = await setup();
    const bytes = (n: number) => `0x${"ab".repeat(n)}`;
    // 32 KiB by default: two calls of 16 KiB are accepted, one byte more is refused, on both routes.
    const atLimit = await post({ to: [TARGET, TARGET], value: ["0", "0"], data: [bytes(16_384), bytes(16_384)] });
    expect(atLimit.status).to.equal(202);
    const over = { to: [TARGET, TARGET], value: ["0", "0"], data: [bytes(16_384), bytes(16_385)] };
    const kernel = await post(over);
    const base = await request(app)
      .post("/v1/base/tx")
      .set("Authorization", `Bearer ${token}`)
      .send({ userId: "acme:bob", chain: "localhost", auth: "", ...over });
    for (const [res, instance] of [
      [kernel, "/v1/kernel/tx"],
      [base, "/v1/base/tx"],
    ] as const) {
      expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
      expect(res.body).to.deep.equal({
        type: "about:blank",
        title: "Invalid request",
        status: 400,
        code: "CALL_DATA_TOO_LARGE",
        detail: "A request carries at most 32768 bytes of call data (TX_MAX_CALL_DATA_BYTES); this one has 32769",
        limit: "TX_MAX_CALL_DATA_BYTES",
        instance,
        requestId: res.headers["x-request-id"],
      });
    }
    // Only the request at the limit was stored.
    const due = await (await repositories).transactions.due("localhost", new Date("2100-01-01"), 100);
    expect(due.map((tx) => tx.id)).to.deep.equal([atLimit.body.id]);
    close();
  });

  /** The request ids stored so far (due at any time). */
  const storedIds = async (built: Awaited<ReturnType<typeof setup>>) =>
    (await (await built.repositories).transactions.due("localhost", new Date("2100-01-01"), 100)).map((tx) => tx.id);
  const bytes = (n: number) => `0x${"ab".repeat(n)}`;

  it("refuses a 400 KB call at once with CALL_DATA_TOO_LARGE naming TX_MAX_CALL_BYTES, and stores nothing", async () => {
    const built = await setup();
    const res = await built.post({ data: [bytes(400 * 1024)] });
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Invalid request",
      status: 400,
      code: "CALL_DATA_TOO_LARGE",
      detail: "A call carries at most 32768 bytes of data (TX_MAX_CALL_BYTES); call 0 has 409600",
      limit: "TX_MAX_CALL_BYTES",
      errors: [{ pointer: "/data/0", detail: "409600 bytes" }],
      instance: "/v1/kernel/tx",
      requestId: res.headers["x-request-id"],
    });
    expect(await storedIds(built)).to.deep.equal([]);
    built.close();
  });

  it("bounds each call's data by TX_MAX_CALL_BYTES: at the limit accepted, one byte over refused", async () => {
    const built = await setup(["localhost"], { maxCallBytes: 1000, maxCallDataBytes: 4000 });
    const atLimit = await built.post({ to: [TARGET, TARGET], value: ["0", "0"], data: [bytes(1000), bytes(1000)] });
    expect(atLimit.status).to.equal(202);
    const over = await built.post({ to: [TARGET, TARGET], value: ["0", "0"], data: [bytes(10), bytes(1001)] });
    expect([over.status, over.body.code, over.body.limit]).to.deep.equal([
      400,
      "CALL_DATA_TOO_LARGE",
      "TX_MAX_CALL_BYTES",
    ]);
    expect(over.body.errors).to.deep.equal([{ pointer: "/data/1", detail: "1001 bytes" }]);
    expect(await storedIds(built)).to.deep.equal([atLimit.body.id]);
    built.close();
  });

  it("bounds preVerificationGas by TX_MAX_PRE_VERIFICATION_GAS: at the limit accepted, one byte over refused", async () => {
    const cap = 200_000;
    // The largest call whose operation fits the cap, counted as acceptance counts it (the worker's real builds stay
    // under that count: the UserOperation builder's tests check it against the EntryPoint).
    const bound = (n: number) =>
      operationBound("kernel", [{ to: TARGET, value: 0n, data: bytes(n) }], false).preVerificationGas;
    let [largest, above] = [0, 32 * 1024];
    while (above - largest > 1) {
      const middle = Math.floor((largest + above) / 2);
      if (bound(middle) <= BigInt(cap)) largest = middle;
      else above = middle;
    }
    const built = await setup(["localhost"], { maxPreVerificationGas: cap });
    const atLimit = await built.post({ data: [bytes(largest)] });
    expect(atLimit.status).to.equal(202);
    const over = await built.post({ data: [bytes(largest + 1)] });
    expect(over.body).to.include({
      status: 400,
      code: "CALL_DATA_TOO_LARGE",
      limit: "TX_MAX_PRE_VERIFICATION_GAS",
      detail: `Its operation could need ${bound(largest + 1)} preVerificationGas; this deployment sponsors at most ${cap} (TX_MAX_PRE_VERIFICATION_GAS)`,
    });
    expect(await storedIds(built)).to.deep.equal([atLimit.body.id]);
    built.close();
  });

  it("refuses a request whose operation no bundle transaction could carry, though each size limit allows it", async () => {
    // 256 calls of 384 bytes: 96 KiB of data, within TX_MAX_CALL_DATA_BYTES, but executeBatch's encoding of so many
    // calls takes the operation past the ~120 KB a bundle transaction carries.
    const built = await setup(["localhost"], { maxCalls: 256, maxCallBytes: 384, maxCallDataBytes: 96 * 1024 });
    const many = Array.from({ length: 256 }, () => TARGET);
    const res = await built.post({ to: many, value: many.map(() => "0"), data: many.map(() => bytes(384)) });
    expect([res.status, res.body.code, res.body.limit]).to.deep.equal([400, "CALL_DATA_TOO_LARGE", "BUNDLE_SIZE"]);
    expect(res.body.detail).to.match(
      /^Its operation would have up to \d+ bytes; a bundle transaction carries at most 120000$/,
    );
    expect(await storedIds(built)).to.deep.equal([]);
    built.close();
  });

  it("needs the bearer token, and shows a request only to the app that sent it", async () => {
    const built = await setup();
    const noToken = await request(built.app).post("/v1/kernel/tx").send({});
    expect([noToken.status, noToken.body.code]).to.deep.equal([401, "MISSING_TOKEN"]);
    const { body } = await built.post({});
    const other = await built.appWithToken("other app", true);
    const hidden = await request(built.app)
      .get(`/v1/kernel/tx/${body.id}`)
      .set("Authorization", `Bearer ${other.token}`);
    expect([hidden.status, hidden.body.code]).to.deep.equal([404, "NOT_FOUND"]);
    const garbage = await request(built.app).get("/v1/kernel/tx/..%2F..").set("Authorization", `Bearer ${built.token}`);
    expect(garbage.status).to.equal(404);
    // Another app acting on this app's provider, even in test mode: refused, nothing stored.
    const foreign = await request(built.app)
      .post("/v1/kernel/tx")
      .set("Authorization", `Bearer ${other.token}`)
      .send({ userId: "acme:bob", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: "" });
    expect([foreign.status, foreign.body.code]).to.deep.equal([403, "PROVIDER_NOT_OWNED"]);
    built.close();
  });

  it("returns the first request for a retried Idempotency-Key, and 409 for the key with another body", async () => {
    const { post, repositories, close } = await setup();
    const first = await post({}, { "Idempotency-Key": "k-1" });
    const again = await post({}, { "Idempotency-Key": "k-1" });
    // The stored hash is the one earlier versions stored: a retry across an upgrade still replays.
    expect((await (await repositories).transactions.find(first.body.id))!.requestHash).to.equal(
      "d82c026ed16646a363adde403d45ffc4099efb7b2a565e45e8ec6fb2ba0b14c6",
    );
    expect(again.status).to.equal(202);
    expect(again.body.id).to.equal(first.body.id);
    expect(again.headers["idempotent-replayed"]).to.equal("true");
    const conflict = await post({ value: ["1"] }, { "Idempotency-Key": "k-1" });
    expect([conflict.status, conflict.body.code]).to.deep.equal([409, "IDEMPOTENCY_KEY_REUSED"]);
    const badKey = await post({}, { "Idempotency-Key": "x".repeat(256) });
    expect([badKey.status, badKey.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    const due = await (await repositories).transactions.due("localhost", new Date("2100-01-01"), 100);
    expect(due).to.have.length(1);
    close();
  });

  it("serves the deprecated base endpoint with 200 and the Deprecation and Link headers", async () => {
    const built = await setup();
    const res = await request(built.app)
      .post("/v1/base/tx")
      .set("Authorization", `Bearer ${built.token}`)
      .send({ userId: "acme:alice", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: "" });
    expect(res.status).to.equal(200);
    expect(res.headers.deprecation).to.equal("@1704067200");
    expect(res.headers.link).to.include('rel="successor-version"');
    const kernel = await built.post({});
    expect(res.body.sender).to.not.equal(kernel.body.sender);
    const missingAuth = await request(built.app)
      .post("/v1/base/tx")
      .set("Authorization", `Bearer ${built.token}`)
      .send({ userId: "acme:alice", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"] });
    expect([missingAuth.status, missingAuth.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    built.close();
  });

  it("reports the queue by chain and status in /metrics", async () => {
    const { post, app, close } = await setup();
    await post({});
    await post({ value: ["1"] });
    const metrics = await request(app).get("/metrics").expect(200);
    expect(metrics.text).to.contain('idwallet_transactions{chain="localhost",status="queued"} 2');
    close();
  });
});
