import { expect } from "chai";
import { type IdwalletClient, type UserLogin, WaitTimeoutError, createIdwalletClient } from "@idwallet/client";
import { closeAll, listenOn } from "../helpers/fastPathPair";
import { type ServedTestApp, idleChain, serveTestApp } from "../helpers/servedTestApp";

const PHONE = "+14155552671";
const TARGET = "0x000000000000000000000000000000000000dEaD";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** How long the service holds a `?wait=true` poll: far longer than the waits these tests allow the client. */
const SERVICE_WAIT_MS = 5000;

const elapsedSince = (started: number) => Date.now() - started;

describe("client package: sendCalls / sendTransaction (Idempotency-Key) and waitForTransaction (bounded, abortable)", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  let user: UserLogin;
  before(async () => {
    service = await serveTestApp(
      { transactions: { waitTimeoutMs: SERVICE_WAIT_MS } },
      { chains: new Map([["localhost", idleChain()]]), txChains: ["localhost"] },
    );
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
    user = await service.loginPhone(idwallet, PHONE);
  });
  after(() => service.close());
  beforeEach(() => service.received.splice(0));

  const asUser = () => ({ userId: user.userId, chain: "localhost", auth: user.userToken });
  const sends = () => service.receivedAt("POST", "/v1/kernel/tx");
  const queued = () => idwallet.sendTransaction({ ...asUser(), to: TARGET });

  it("sends the calls in order, values and data as given (0 and 0x when omitted)", async () => {
    const record = await idwallet.sendCalls({
      ...asUser(),
      calls: [{ to: TARGET, value: 10n }, { to: TARGET, value: "0x0a", data: "0xabcdef" }, { to: TARGET }],
    });
    expect(record).to.include({ status: "queued", userId: "tel:14155552671", chain: "localhost" });
    const stored = await (await service.repositories).transactions.find(record.id);
    expect(stored?.calls).to.deep.equal([
      { to: TARGET, value: 10n, data: "0x" },
      { to: TARGET, value: 10n, data: "0xabcdef" },
      { to: TARGET, value: 0n, data: "0x" },
    ]);
  });

  it("makes a fresh Idempotency-Key for each call without one: two calls are two requests", async () => {
    const first = await queued();
    const second = await idwallet.sendCalls({ ...asUser(), calls: [{ to: TARGET }] });
    expect(second.id).to.not.equal(first.id);
    const keys = sends().map((entry) => entry.headers["idempotency-key"]);
    expect(keys).to.have.length(2);
    for (const key of keys) expect(key).to.match(UUID);
    expect(keys[0]).to.not.equal(keys[1]);
  });

  it("sends the key it is given: the same key twice gives the first request's record, as the service promises", async () => {
    const idempotencyKey = `order-${Date.now()}`;
    const first = await idwallet.sendTransaction({ ...asUser(), to: TARGET, value: 1n, idempotencyKey });
    const again = await idwallet.sendCalls({ ...asUser(), calls: [{ to: TARGET, value: 1n }], idempotencyKey });
    expect(again.id).to.equal(first.id);
    expect(sends().map((entry) => entry.headers["idempotency-key"])).to.deep.equal([idempotencyKey, idempotencyKey]);
  });

  it("gives up waiting after its timeout with a WaitTimeoutError carrying the request as last seen", async () => {
    const record = await queued();
    const started = Date.now();
    const error = await idwallet
      .waitForTransaction(record.id, { timeoutMs: 400 })
      .catch((thrown: unknown) => thrown as WaitTimeoutError<typeof record>);
    expect(error).to.be.instanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError<typeof record>).last).to.include({ id: record.id, status: "queued" });
    expect(elapsedSince(started)).to.be.within(400, SERVICE_WAIT_MS / 2);
  });

  it("bounds the first look too: a service that never answers gives the WaitTimeoutError, nothing seen", async () => {
    // A stand-in service: it hands out a token, then holds every other request unanswered.
    const silent = await listenOn((req, res) => {
      if (req.url !== "/v1/auth") return;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ access_token: "token", token_type: "Bearer", expires_in: 3600 }));
    });
    try {
      const client = createIdwalletClient({ baseUrl: `http://127.0.0.1:${silent.port}`, ...service.credentials });
      const started = Date.now();
      const error = await client
        .waitForTransaction("5f0c2b9e-1111-4222-8333-944455556666", { timeoutMs: 300 })
        .catch((thrown: unknown) => thrown);
      expect(error).to.be.instanceOf(WaitTimeoutError);
      expect((error as WaitTimeoutError<unknown>).last).to.equal(undefined);
      expect(elapsedSince(started)).to.be.within(300, 2000);
    } finally {
      await closeAll([silent]);
    }
  });

  it("stops waiting at once when its AbortSignal aborts, with the signal's reason", async () => {
    const record = await queued();
    const controller = new AbortController();
    const reason = new Error("the user left the page");
    setTimeout(() => controller.abort(reason), 200);
    const started = Date.now();
    const error = await idwallet
      .waitForTransaction(record.id, { signal: controller.signal })
      .catch((thrown: unknown) => thrown);
    expect(error).to.equal(reason);
    expect(elapsedSince(started)).to.be.within(200, 1500);
  });

  it("refuses to start waiting on a signal already aborted", async () => {
    const record = await queued();
    service.received.splice(0);
    const reason = new Error("already gone");
    const error = await idwallet
      .waitForTransaction(record.id, { signal: AbortSignal.abort(reason) })
      .catch((thrown: unknown) => thrown);
    expect(error).to.equal(reason);
    expect(service.received).to.deep.equal([]);
  });

  it("returns once the request is final, from the poll the service holds (no busy polling)", async () => {
    const record = await queued();
    const transactionHash = `0x${"ab".repeat(32)}`;
    // What the worker records once the bundle is mined.
    const settle = async () =>
      (await service.repositories).transactions.settle(record.id, {
        status: "included",
        transactionHash,
        blockNumber: 7,
        success: true,
      });
    setTimeout(() => void settle(), 300);
    const started = Date.now();
    const final = await idwallet.waitForTransaction(record.id, { timeoutMs: SERVICE_WAIT_MS * 2 });
    expect(final).to.include({ id: record.id, status: "included", transactionHash, success: true });
    expect(elapsedSince(started)).to.be.below(SERVICE_WAIT_MS);
    const polls = service.receivedAt("GET", `/v1/kernel/tx/${record.id}`).map((entry) => entry.url.split("?")[1]);
    expect(polls).to.deep.equal([undefined, "wait=true"]);
  });

  it("returns a request already final after one look", async () => {
    const record = await queued();
    await (
      await service.repositories
    ).transactions.settle(record.id, {
      status: "failed",
      error: { code: "REVERTED", message: "reverted" },
    });
    service.received.splice(0);
    expect(await idwallet.waitForTransaction(record.id)).to.include({ id: record.id, status: "failed" });
    expect(service.received).to.have.length(1);
  });
});
