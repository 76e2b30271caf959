import { expect } from "chai";
import type { ServerResponse } from "node:http";
import { type IdwalletClient, IdwalletError, UNEXPECTED_RESPONSE, createIdwalletClient } from "@idwallet/client";
import { closeAll, listenOn } from "../helpers/fastPathPair";
import { type ServedTestApp, idleChain, serveTestApp } from "../helpers/servedTestApp";

const PHONE = "+14155552671";
const TARGET = "0x000000000000000000000000000000000000dEaD";

/** What `promise` rejected with (failing the test if it resolved). */
const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail("resolved"),
    (thrown: unknown) => thrown,
  );

/** A proxy's error page, as a gateway in front of the service answers when the service is down. */
const badGateway = (res: ServerResponse) => {
  res.writeHead(502, { "Content-Type": "text/html", "X-Request-Id": "proxy-request-7" });
  res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
};

describe("client package: every refusal is one IdwalletError (status, the service's code, requestId, the problem)", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  before(async () => {
    service = await serveTestApp({}, { chains: new Map([["localhost", idleChain()]]), txChains: ["localhost"] });
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
  });
  after(() => service.close());
  beforeEach(() => service.received.splice(0));

  /** The X-Request-Id of the last answer the service sent. */
  const lastRequestId = () => service.received.at(-1)?.answer?.requestId;

  it("a 400 carries the service's code, its request id and the problem's `errors`", async () => {
    const user = await service.loginPhone(idwallet, PHONE);
    const error = await rejectionOf(
      idwallet.sendTransaction({ userId: user.userId, chain: "localhost", auth: user.userToken, to: "0x1234" }),
    );
    expect(error).to.be.instanceOf(IdwalletError);
    const { status, code, requestId, problem } = error as IdwalletError;
    expect({ status, code }).to.deep.equal({ status: 400, code: "INVALID_REQUEST" });
    expect(requestId).to.be.a("string").and.equal(lastRequestId());
    expect(problem).to.include({ status: 400, code: "INVALID_REQUEST", requestId, instance: "/v1/kernel/tx" });
    const errors = (problem as { errors?: { pointer: string }[] }).errors;
    expect(errors?.map((entry) => entry.pointer)).to.deep.equal(["/to/0"]);
  });

  it("a refused id names it in the problem's `invalidUserIds`", async () => {
    const error = (await rejectionOf(idwallet.resolve(["github:alice", "nobody"]))) as IdwalletError;
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 400, code: "INVALID_USER_ID", requestId: lastRequestId() });
    const invalid = (error.problem as { invalidUserIds?: { index: number; userId: string }[] }).invalidUserIds;
    expect(invalid?.map(({ index, userId }) => ({ index, userId }))).to.deep.equal([{ index: 1, userId: "nobody" }]);
    expect(error.message).to.match(/^INVALID_USER_ID: /);
  });

  it("another app replaying a user's login token is refused with the service's code", async () => {
    const user = await service.loginPhone(idwallet, PHONE);
    const other = await (await service.repositories).apps.create({ name: "other app", testMode: true });
    const otherClient = createIdwalletClient({
      baseUrl: service.baseUrl,
      clientId: other.app.clientId,
      clientSecret: other.clientSecret,
    });
    const error = (await rejectionOf(
      otherClient.sendTransaction({ userId: user.userId, chain: "localhost", auth: user.userToken, to: TARGET }),
    )) as IdwalletError;
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 403, code: "PROOF_WRONG_APP" });
    expect(error.problem?.code).to.equal("PROOF_WRONG_APP");
    expect(error.requestId).to.equal(lastRequestId());
    expect(await (await service.repositories).transactions.due("localhost", new Date("2100-01-01"), 10)).to.deep.equal(
      [],
    );
  });

  it("a wrong client secret is the token endpoint's INVALID_CLIENT, with its OAuth fields", async () => {
    const client = createIdwalletClient({
      baseUrl: service.baseUrl,
      clientId: service.credentials.clientId,
      clientSecret: "not-the-secret",
    });
    const error = (await rejectionOf(client.webhooks.list())) as IdwalletError;
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 401, code: "INVALID_CLIENT", requestId: lastRequestId() });
    expect(error.problem).to.include({ error: "invalid_client" });
    expect(service.receivedAt("GET", "/v1/webhooks"), "nothing sent without a token").to.deep.equal([]);
  });

  describe("answers that are not the service's problems (a proxy's error page)", () => {
    it("an HTML 502 from the token endpoint is UNEXPECTED_RESPONSE with the proxy's request id", async () => {
      const proxy = await listenOn((_req, res) => badGateway(res));
      try {
        const client = createIdwalletClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, ...service.credentials });
        const error = (await rejectionOf(client.webhooks.list())) as IdwalletError;
        expect(error).to.be.instanceOf(IdwalletError);
        expect(error).to.include({ status: 502, code: UNEXPECTED_RESPONSE, requestId: "proxy-request-7" });
        expect(error.problem).to.equal(undefined);
      } finally {
        await closeAll([proxy]);
      }
    });

    it("an HTML 502 to an API call is UNEXPECTED_RESPONSE, on routes with and without a token", async () => {
      const proxy = await listenOn((req, res) => {
        if (req.url !== "/v1/auth") return badGateway(res);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ access_token: "token", token_type: "Bearer", expires_in: 3600 }));
      });
      try {
        const client = createIdwalletClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, ...service.credentials });
        for (const call of [() => client.webhooks.list(), () => client.networks(), () => client.resolve(["a:b"])]) {
          const error = (await rejectionOf(call())) as IdwalletError;
          expect(error).to.be.instanceOf(IdwalletError);
          expect(error).to.include({ status: 502, code: UNEXPECTED_RESPONSE, requestId: "proxy-request-7" });
        }
      } finally {
        await closeAll([proxy]);
      }
    });

    it("an HTML page answered with 200 (a captive portal) is UNEXPECTED_RESPONSE, not a parse error", async () => {
      const portal = await listenOn((_req, res) => {
        res.writeHead(200, { "Content-Type": "text/html" });
        res.end("<html><body>Sign in to the hotel Wi-Fi</body></html>");
      });
      try {
        const client = createIdwalletClient({ baseUrl: `http://127.0.0.1:${portal.port}`, ...service.credentials });
        for (const call of [() => client.webhooks.list(), () => client.networks()]) {
          const error = (await rejectionOf(call())) as IdwalletError;
          expect(error).to.be.instanceOf(IdwalletError);
          expect(error).to.include({ status: 200, code: UNEXPECTED_RESPONSE });
        }
      } finally {
        await closeAll([portal]);
      }
    });
  });
});
