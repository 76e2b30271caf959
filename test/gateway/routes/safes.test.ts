import { expect } from "chai";
import { Interface, JsonRpcProvider, Wallet, computeAddress } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { createProxyCallData, predictSafeAddress, safeInitializer } from "../../../gateway/safe/encoding/safeCreation";
import { appSaltNonce } from "../../../gateway/safe/accept/safeOwners";
import { buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

const OPERATOR_KEY = `0x${"5a".repeat(32)}`;
const OPERATOR = computeAddress(OPERATOR_KEY);
const CONTRACTS = PLACEHOLDER_SAFE_CONTRACTS;
const SIGNER = "0x00000000000000000000000000000000000000A1";
const TOKEN = "0x000000000000000000000000000000000000C0DE";
const erc20 = new Interface(["function transfer(address to, uint256 amount)"]);

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

describe("API: Safe accounts under /v1/{chain} (acceptance, validation, ownership)", () => {
  const setup = async (safe: Record<string, unknown> = { operatorKey: OPERATOR_KEY, contracts: CONTRACTS }) => {
    const built = buildTestApp(
      { chains: { localhost: { rpcUrl: "http://127.0.0.1:9" } }, relayerKey: `0x${"4b".repeat(32)}`, safe },
      { chains: new Map([["localhost", idleChain("localhost", 31337)]]), txChains: ["localhost"] },
    );
    const { app, token } = await built.appWithToken("acme app");
    const post = (route: string, body: unknown, headers: Record<string, string> = {}) =>
      request(built.app)
        .post(route)
        .set({ Authorization: `Bearer ${token}`, ...headers })
        .send(body as object);
    return { ...built, appId: app.id, token, post };
  };

  it("commits a Safe's deployment and answers 202 with the address CREATE2 gives, owners and threshold 1", async () => {
    const { post, repositories, appId, close } = await setup();
    const res = await post("/v1/localhost/account", { signers: [SIGNER.toLowerCase()], saltNonce: "7" });
    expect(res.status).to.equal(202);
    const owners = [SIGNER, OPERATOR];
    const initializer = safeInitializer(owners, CONTRACTS.fallbackHandler);
    const address = predictSafeAddress(
      CONTRACTS.proxyFactory,
      CONTRACTS.singleton,
      initializer,
      appSaltNonce(appId, 7n),
    );
    expect(res.body).to.deep.include({
      address,
      chain: "localhost",
      owners,
      threshold: 1,
      saltNonce: "7",
      status: "queued",
    });
    expect(res.headers.location).to.equal(`/v1/localhost/account/${address}/tx/${res.body.txUuid}`);
    const stored = (await (await repositories).transactions.find(res.body.txUuid))!;
    expect(stored).to.deep.include({ accountType: "safe", safeAction: "create", sender: address, status: "queued" });
    // The stored hash is the one earlier versions stored: a retry across an upgrade still replays.
    expect(stored.requestHash).to.equal("24d9b4408b82202fd1f9c4dffd1bb3ddb8f64bb19d8d744630697931ae43f530");
    expect(stored.calls).to.deep.equal([
      {
        to: CONTRACTS.proxyFactory,
        value: 0n,
        data: createProxyCallData(CONTRACTS.singleton, initializer, appSaltNonce(appId, 7n)),
      },
    ]);
    close();
  });

  it("stores payouts as one Safe call each: a transfer as a CALL, a disperse as a DELEGATECALL to MultiSendCallOnly", async () => {
    const { post, repositories, close } = await setup();
    const { body: safe } = await post("/v1/localhost/account", { signers: [SIGNER] });
    const recipient = Wallet.createRandom().address;
    const transfer = await post(`/v1/localhost/account/${safe.address}/payout/transfer`, {
      token: TOKEN,
      to: recipient,
      amount: "0x10",
    });
    expect(transfer.status).to.equal(202);
    expect(transfer.body).to.deep.include({
      action: "transfer",
      status: "queued",
      safe: safe.address,
      safeTxHash: null,
    });
    const stored = (await (await repositories).transactions.find(transfer.body.txUuid))!;
    expect(stored).to.deep.include({ delegatecall: false, safeAction: "transfer" });
    expect(stored.calls).to.deep.equal([
      { to: TOKEN, value: 0n, data: erc20.encodeFunctionData("transfer", [recipient, 16n]).toLowerCase() },
    ]);
    const disperse = await post(`/v1/localhost/account/${safe.address}/payout/disperse`, {
      transfers: [
        { to: recipient, amount: "1" },
        { token: TOKEN, to: recipient, amount: "2" },
      ],
    });
    const batched = (await (await repositories).transactions.find(disperse.body.txUuid))!;
    expect(batched).to.deep.include({ delegatecall: true, safeAction: "disperse" });
    expect(batched.calls[0]!.to).to.equal(CONTRACTS.multiSendCallOnly);
    close();
  });

  it("refuses bad input with stable codes and stores nothing", async () => {
    const { post, repositories, close } = await setup();
    const cases: [string, unknown, number, string][] = [
      ["/v1/localhost/account", { signers: [] }, 400, "INVALID_REQUEST"],
      ["/v1/localhost/account", { signers: ["0x12"] }, 400, "INVALID_REQUEST"],
      ["/v1/localhost/account", { signers: [SIGNER, SIGNER] }, 400, "INVALID_REQUEST"],
      ["/v1/localhost/account", { signers: [OPERATOR] }, 400, "INVALID_REQUEST"],
      ["/v1/localhost/account", { signers: [`0x${"0".repeat(40)}`] }, 400, "INVALID_REQUEST"],
      [
        "/v1/localhost/account",
        { signers: Array.from({ length: 20 }, () => Wallet.createRandom().address) },
        400,
        "TOO_MANY_SIGNERS",
      ],
      ["/v1/localhost/account", { signers: ["0x0000000000000000000000000000000000000001"] }, 400, "INVALID_REQUEST"],
      ["/v1/localhost/account", { signers: [SIGNER], saltNonce: "-1" }, 400, "INVALID_REQUEST"],
      ["/v1/nowhere/account", { signers: [SIGNER] }, 400, "UNKNOWN_CHAIN"],
      ["/v1/base/account", { signers: [SIGNER] }, 400, "CHAIN_NOT_AVAILABLE"],
      ["/v1/eth/account", { signers: [SIGNER] }, 503, "SAFE_NOT_CONFIGURED"],
      ["/v1/localhost/accounts", { limit: 0 }, 400, "INVALID_REQUEST"],
      ["/v1/localhost/accounts", { cursor: "x" }, 400, "INVALID_CURSOR"],
      [`/v1/localhost/account/0x12/payout/transfer`, { to: SIGNER, amount: "1" }, 400, "INVALID_REQUEST"],
    ];
    for (const [route, body, status, code] of cases) {
      const res = await post(route, body);
      expect([res.status, res.body.code], `${route} ${JSON.stringify(body)}`).to.deep.equal([status, code]);
      expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
    }
    expect(await (await repositories).transactions.due("localhost", new Date("2100-01-01"), 100)).to.have.length(0);
    close();
  });

  it("answers 503 SAFE_NOT_CONFIGURED without an operator key, and 401 without a bearer token", async () => {
    const { post, app, close } = await setup({ contracts: CONTRACTS });
    const res = await post("/v1/localhost/account", { signers: [SIGNER] });
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.include({ code: "SAFE_NOT_CONFIGURED", title: "Safe accounts unavailable" });
    for (const route of ["/v1/localhost/account", "/v1/localhost/accounts", `/v1/localhost/account/${SIGNER}/custom`]) {
      const anonymous = await request(app).post(route).send({});
      expect([anonymous.status, anonymous.body.code], route).to.deep.equal([401, "MISSING_TOKEN"]);
    }
    close();
  });

  it("lets only the creating app act on a Safe or see its requests, and 409s a reused Idempotency-Key", async () => {
    const built = await setup();
    const { body: safe } = await built.post("/v1/localhost/account", { signers: [SIGNER] });
    const sent = await built.post(
      `/v1/localhost/account/${safe.address}/custom`,
      { to: TOKEN, data: "0x1234" },
      { "Idempotency-Key": "k1" },
    );
    const replay = await built.post(
      `/v1/localhost/account/${safe.address}/custom`,
      { to: TOKEN, data: "0x1234" },
      { "Idempotency-Key": "k1" },
    );
    expect([replay.status, replay.body.txUuid, replay.headers["idempotent-replayed"]]).to.deep.equal([
      202,
      sent.body.txUuid,
      "true",
    ]);
    const reused = await built.post(
      `/v1/localhost/account/${safe.address}/custom`,
      { to: TOKEN },
      { "Idempotency-Key": "k1" },
    );
    expect([reused.status, reused.body.code]).to.deep.equal([409, "IDEMPOTENCY_KEY_REUSED"]);

    const other = await built.appWithToken("other app");
    const asOther = (method: "get" | "post", route: string) =>
      request(built.app)[method](route).set("Authorization", `Bearer ${other.token}`).send({ to: SIGNER, amount: "1" });
    const acting = await asOther("post", `/v1/localhost/account/${safe.address}/payout/transfer`);
    expect([acting.status, acting.body.code]).to.deep.equal([403, "SAFE_NOT_OWNED"]);
    const peeking = await asOther("get", `/v1/localhost/account/${safe.address}/tx/${sent.body.txUuid}`);
    expect([peeking.status, peeking.body.code]).to.deep.equal([403, "SAFE_NOT_OWNED"]);
    const listed = await asOther("post", "/v1/localhost/accounts");
    expect(listed.body).to.deep.equal({ accounts: [], nextCursor: null });
    // The salt is bound to the app: the same signers and saltNonce give another app another Safe, so no app can
    // claim a Safe's address on a chain where its creator has not deployed it yet.
    const mine = await built.post("/v1/localhost/account", { signers: [SIGNER], saltNonce: "5" });
    const theirs = await request(built.app)
      .post("/v1/localhost/account")
      .set("Authorization", `Bearer ${other.token}`)
      .send({ signers: [SIGNER], saltNonce: "5" });
    expect([mine.status, theirs.status]).to.deep.equal([202, 202]);
    expect(theirs.body.address).to.not.equal(mine.body.address);
    // A txUuid of another Safe (its deployment) is not found under this one.
    const { body: second } = await built.post("/v1/localhost/account", { signers: [SIGNER], saltNonce: "99" });
    const elsewhere = await request(built.app)
      .get(`/v1/localhost/account/${safe.address}/tx/${second.txUuid}`)
      .set("Authorization", `Bearer ${built.token}`);
    expect([elsewhere.status, elsewhere.body.code]).to.deep.equal([404, "NOT_FOUND"]);
    built.close();
  });
});
