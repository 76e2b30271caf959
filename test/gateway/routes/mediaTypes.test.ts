import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { hs256Provider } from "../../helpers/providerProofs";
import { buildTestApp } from "../../helpers/testApp";

const TARGET = "0x000000000000000000000000000000000000dEaD";
const SIGNER = "0x00000000000000000000000000000000000000A1";
const CALL = { userId: "acme:alice", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: "" };

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/** The test app with a test-mode app (its provider registered) whose requests on localhost are accepted. */
async function setup() {
  const built = buildTestApp({}, { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] });
  const { app, token } = await built.appWithToken("acme app", true);
  await (await built.repositories).providers.register(app.id, "acme", hs256Provider("a".repeat(40)));
  /** POSTs `body` as bytes with the app's token and `contentType` (none when undefined). */
  const post = (path: string, body: string, contentType?: string) => {
    const req = request(built.app).post(path).set("Authorization", `Bearer ${token}`).send(body);
    return contentType === undefined ? req.unset("Content-Type") : req.set("Content-Type", contentType);
  };
  const stored = async () => (await built.repositories).transactions.countByStatus();
  return { ...built, post, stored };
}

/** The 415 problem a route answers at `instance`, naming what it reads. */
const unsupported = (res: request.Response, instance: string, accepted = "application/json") => ({
  type: "about:blank",
  title: "Unsupported media type",
  status: 415,
  code: "UNSUPPORTED_MEDIA_TYPE",
  detail: `Send the body as ${accepted}`,
  instance,
  requestId: res.headers["x-request-id"],
});

describe("API: a JSON body in another media type, or without Content-Type, is 415, never read as no body", () => {
  it("every JSON-body route answers 415 UNSUPPORTED_MEDIA_TYPE to JSON sent without Content-Type", async () => {
    const { post, close } = await setup();
    const routes: [string, object][] = [
      ["/v1/kernel/tx", CALL],
      ["/v1/base/tx", CALL],
      ["/v1/kernel/sign", { userId: "acme:alice", hash: `0x${"ab".repeat(32)}`, auth: "" }],
      ["/v1/localhost/account", { signers: [SIGNER] }],
      ["/v1/localhost/accounts", { limit: 5 }],
      [`/v1/localhost/account/${SIGNER}/custom`, { to: TARGET, data: "0x" }],
      [`/v1/localhost/account/${SIGNER}/payout/transfer`, { to: TARGET, amount: "1" }],
      [`/v1/localhost/account/${SIGNER}/payout/disperse`, { transfers: [{ to: TARGET, amount: "1" }] }],
      [
        `/v1/localhost/account/${SIGNER}/payout/disperseNFT`,
        { transfers: [{ token: TARGET, to: TARGET, tokenId: "1" }] },
      ],
      ["/v1/webhooks", { url: "https://hooks.example.com/idwallet" }],
      ["/functions/v1/signInWithOTP", { phone: "+14155552671" }],
      ["/functions/v1/verifyOTP", { phone: "+14155552671", token: "123456" }],
    ];
    for (const [path, body] of routes) {
      const res = await post(path, JSON.stringify(body));
      expect([res.status, res.body], path).to.deep.equal([415, unsupported(res, path)]);
      const plain = await post(path, JSON.stringify(body), "text/plain");
      expect([plain.status, plain.body], `${path} as text/plain`).to.deep.equal([415, unsupported(plain, path)]);
    }
    close();
  });

  it("the resolver keeps reading JSON sent as text/plain (the spec's sample call) and refuses it without a type", async () => {
    const { post, close } = await setup();
    const body = JSON.stringify({ userIds: "acme:alice" });
    expect((await post("/v1/resolver", body, "text/plain")).status).to.equal(200);
    const res = await post("/v1/resolver", body);
    expect([res.status, res.body]).to.deep.equal([
      415,
      unsupported(res, "/v1/resolver", "application/json or text/plain (JSON text)"),
    ]);
    close();
  });

  it("a transaction sent without Content-Type is refused, not stored; the same body as JSON is accepted", async () => {
    const { post, stored, close } = await setup();
    expect((await post("/v1/kernel/tx", JSON.stringify(CALL))).status).to.equal(415);
    expect((await post("/v1/kernel/tx", JSON.stringify(CALL), "application/x-www-form-urlencoded")).status).to.equal(
      415,
    );
    expect(await stored()).to.deep.equal([]);
    expect((await post("/v1/kernel/tx", JSON.stringify(CALL), "application/json")).status).to.equal(202);
    expect(await stored()).to.deep.equal([{ chain: "localhost", status: "queued", count: 1 }]);
    close();
  });

  it("a request with no body at all is left to the route's schema (400 for a route that needs one)", async () => {
    const { app, close } = await setup();
    const res = await request(app).post("/functions/v1/signInWithOTP");
    expect([res.status, res.body.code]).to.deep.equal([400, "INVALID_REQUEST"]);
    close();
  });
});
