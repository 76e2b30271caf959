import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { buildTestApp } from "../../helpers/testApp";
import { hs256Proof, hs256Provider } from "../../helpers/providerProofs";

const SECRET = "demo-identity-service-secret-of-32+chars";
const TARGET = "0x000000000000000000000000000000000000dEaD";

/** A proof token from the demo app's identity service naming `sub`. */
const proofFor = (sub: string) => hs256Proof(SECRET, sub, { expiresIn: 600 });

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

describe("API: user ids of app-owned providers are the identity service's subject, case and all", () => {
  const setup = async () => {
    const built = buildTestApp({}, { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] });
    const { app, token } = await built.appWithToken("demo app", false);
    await (await built.repositories).providers.register(app.id, "demo", hs256Provider(SECRET));
    const act = async (userId: string, sub: string) =>
      request(built.app)
        .post("/v1/kernel/tx")
        .set("Authorization", `Bearer ${token}`)
        .send({ userId, chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: await proofFor(sub) });
    return { ...built, act };
  };

  it("resolves demo:Alice, demo:alice and demo:@alice to three different wallets", async () => {
    const { app, close } = await setup();
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: "demo:Alice,DEMO:alice,demo:@alice" })
      .expect(200);
    const users = res.body.users as { canonicalUserId: string; accountAddress: string }[];
    expect(users.map((u) => u.canonicalUserId)).to.deep.equal(["demo:Alice", "demo:alice", "demo:@alice"]);
    expect(new Set(users.map((u) => u.accountAddress)).size).to.equal(3);
    close();
  });

  it("attack: the subject alice cannot act for demo:Alice (403 PROOF_MISMATCH), nor Alice for demo:alice", async () => {
    const { act, close } = await setup();
    for (const [userId, sub] of [
      ["demo:Alice", "alice"],
      ["demo:alice", "Alice"],
      ["demo:@alice", "alice"],
    ]) {
      const res = await act(userId!, sub!);
      expect([res.status, res.body.code, res.body.detail], userId).to.deep.equal([
        403,
        "PROOF_MISMATCH",
        "auth proves another user id",
      ]);
    }
    close();
  });

  it("lets each subject act for its own id only, from the wallet the resolver names", async () => {
    const { app, act, close } = await setup();
    const resolved = await request(app).post("/v1/resolver").send({ userIds: "demo:Alice,demo:alice" }).expect(200);
    const upper = await act("demo:Alice", "Alice");
    expect([upper.status, upper.body.userId, upper.body.sender]).to.deep.equal([
      202,
      "demo:Alice",
      resolved.body.users[0].accountAddress,
    ]);
    const lower = await act("demo:alice", "alice");
    expect([lower.status, lower.body.userId, lower.body.sender]).to.deep.equal([
      202,
      "demo:alice",
      resolved.body.users[1].accountAddress,
    ]);
    close();
  });
});

describe("API: phone ids carry their country code", () => {
  it("refuses a national-format number with 400 INVALID_USER_ID saying to add the country code", async () => {
    const { app } = buildTestApp();
    const res = await request(app).post("/v1/resolver").send({ userIds: "tel:(647) 555-1234" }).expect(400);
    expect(res.body).to.deep.include({
      status: 400,
      code: "INVALID_USER_ID",
      invalidUserIds: [
        {
          index: 0,
          userId: "tel:(647) 555-1234",
          reason: "phone number must include its country code: add a leading '+' (such as +1 647 555 1234)",
        },
      ],
    });
  });

  it("resolves the same number with its country code, written either way, to one wallet", async () => {
    const { app } = buildTestApp();
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: "tel:+1 (647) 555-1234,tel:16475551234" })
      .expect(200);
    const [written, canonical] = res.body.users;
    expect(written.canonicalUserId).to.equal("tel:16475551234");
    expect(written.accountAddress).to.equal(canonical.accountAddress);
  });
});
