import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import { hs256Provider } from "../../helpers/providerProofs";
import { type Instance, SHARED_DATABASES, twoInstancesOn } from "../../helpers/twoInstances";

const TARGET = "0x000000000000000000000000000000000000dEaD";
const PROOF_SECRET = "instance-state-proof-secret-of-32-chars";
const idle = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/** An authenticated resolver call: 200 while the token's app is admitted. */
const resolveWith = (on: Instance, token: string) =>
  request(on.app).post("/v1/resolver").set("Authorization", `Bearer ${token}`).send({ userIds: "github:alice" });
const tokenFor = (on: Instance, clientId: string, secret: string) =>
  request(on.app).post("/v1/auth").type("form").send({ client_id: clientId, client_secret: secret });

for (const database of SHARED_DATABASES) {
  describe(`API: what an operator changes through one instance holds on the other at once (${database.name})`, () => {
    const twoInstances = twoInstancesOn(database);

    it("an app disabled through instance A cannot use its live token on B, which had verified and kept it", async () => {
      const [a, b] = await twoInstances();
      const { app: registered, clientSecret, token } = await a.appWithToken("to disable");
      await resolveWith(b, token).expect(200);
      await (await a.repositories).apps.setStatus(registered.id, "disabled");
      expect((await resolveWith(b, token).expect(401)).body.code).to.equal("APP_DISABLED");
      await tokenFor(b, registered.clientId, clientSecret).expect(401);
    });

    it("a secret rotated through A: B gives the old secret no token and revokes the tokens it had verified", async () => {
      const [a, b] = await twoInstances();
      const { app: registered, clientSecret } = await a.appWithToken("to rotate");
      const old: string = (await tokenFor(b, registered.clientId, clientSecret).expect(200)).body.access_token;
      await resolveWith(b, old).expect(200);
      const rotated = await (await a.repositories).apps.rotateSecret(registered.id);
      expect((await resolveWith(b, old).expect(401)).body.code).to.equal("TOKEN_REVOKED");
      await tokenFor(b, registered.clientId, clientSecret).expect(401);
      const fresh = await tokenFor(b, registered.clientId, rotated.clientSecret).expect(200);
      await resolveWith(a, fresh.body.access_token).expect(200);
    });

    it("a policy narrowed through A applies to the app's next request on B", async () => {
      const [a, b] = await twoInstances({}, { chains: new Map([["localhost", idle]]), txChains: ["localhost"] });
      const { app: registered, token } = await a.appWithToken("narrowed", true);
      const repos = await a.repositories;
      await repos.providers.register(registered.id, "narrowed", hs256Provider(PROOF_SECRET));
      const post = () =>
        request(b.app)
          .post("/v1/kernel/tx")
          .set("Authorization", `Bearer ${token}`)
          .send({ userId: "narrowed:alice", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: "" });
      expect((await post()).status).to.equal(202);
      await repos.apps.setPolicy(registered.id, { chains: ["maticmum"] });
      const refused = await post();
      expect([refused.status, refused.body.code, refused.body.rule]).to.deep.equal([403, "POLICY_DENIED", "chains"]);
    });
  });
}
