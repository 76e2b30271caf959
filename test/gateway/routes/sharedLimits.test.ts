import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request, { type Response } from "supertest";
import { type Instance, SHARED_DATABASES, twoInstancesOn } from "../../helpers/twoInstances";
import { hs256Provider } from "../../helpers/providerProofs";
import type { PolicySettings } from "../../../gateway/config/policySettings";
import { worstCaseGas } from "../../../gateway/policy/worstCaseGas";

const SIGN_IN = "/functions/v1/signInWithOTP";
const VERIFY = "/functions/v1/verifyOTP";
const TARGET = "0x000000000000000000000000000000000000dEaD";
const PROOF_SECRET = "shared-limits-proof-secret-of-32-chars";
/** What one request of a single empty call reserves under the default TX_MAX_CALL_GAS. */
const ONE_REQUEST = worstCaseGas([{ to: TARGET, value: 0n, data: "0x" }], "wallet", 5_000_000);

/** A 429 RATE_LIMITED whose Retry-After header and body agree, and the detail it gave. */
function expectLimited(res: Response, retryAfter: number): string {
  expect(res.status, res.text).to.equal(429);
  expect(res.body).to.include({ status: 429, code: "RATE_LIMITED" });
  expect(res.headers["retry-after"]).to.equal(String(retryAfter));
  return res.body.detail as string;
}

for (const dialect of SHARED_DATABASES) {
  describe(`API: an attacker alternating between two instances on one database gets each limit once (${dialect.name})`, () => {
    const twoInstances = twoInstancesOn(dialect);

    describe("phone login", () => {
      beforeEach(function () {});
      const signIn = (on: Instance, from: string, phone: string) =>
        request(on.app).post(SIGN_IN).set("X-Forwarded-For", from).send({ phone });
      const phone = (i: number) => `+1415555${String(3000 + i)}`;

      it("codes per address: OTP_PER_IP_PER_HOUR in total, then 429 on either instance; no SMS beyond it", async () => {
        const [a, b] = await twoInstances({ otp: { perIpPerHour: 3 } });
        for (const [i, on] of [a, b, a].entries()) await signIn(on, "203.0.113.7", phone(i)).expect(200);
        for (const [i, on] of [b, a].entries()) {
          const detail = expectLimited(await signIn(on, "203.0.113.7", phone(10 + i)), 3600);
          expect(detail).to.equal("Too many codes requested from this address; retry in 3600 s");
        }
        expect(a.sms.sent.length + b.sms.sent.length).to.equal(3);
        await signIn(b, "203.0.113.8", phone(20)).expect(200);
      });

      it("codes per network: a client rotating addresses of one /24 across instances gets OTP_PER_NETWORK_PER_HOUR", async () => {
        const [a, b] = await twoInstances({ otp: { perIpPerHour: 100, perNetworkPerHour: 4 } });
        for (let i = 0; i < 4; i++) await signIn(i % 2 ? b : a, `198.51.100.${i + 1}`, phone(i)).expect(200);
        const detail = expectLimited(await signIn(a, "198.51.100.99", phone(9)), 3600);
        expect(detail).to.equal("Too many codes requested from this network; retry in 3600 s");
        expectLimited(await signIn(b, "198.51.100.98", phone(8)), 3600);
      });

      it("codes per phone: the number's waits count its codes on every instance (kept in the codes' rows)", async () => {
        const [a, b] = await twoInstances({ otp: { resendCooldownSeconds: 100, resendCooldownMaxSeconds: 300 } });
        await signIn(a, "203.0.113.1", phone(0)).expect(200);
        const first = await signIn(b, "203.0.113.2", phone(0)).expect(429);
        expect(first.body.code).to.equal("OTP_COOLDOWN");
        expect(first.headers["retry-after"]).to.equal("100");
      });

      it("code guesses per address: OTP_VERIFY_PER_IP_PER_HOUR in total, then 429 on either instance", async () => {
        const [a, b] = await twoInstances({ otp: { verifyPerIpPerHour: 3 } });
        const verify = (on: Instance, i: number) =>
          request(on.app)
            .post(VERIFY)
            .set("X-Forwarded-For", "203.0.113.7")
            .send({ phone: phone(i), token: "123456" });
        for (const [i, on] of [a, b, a].entries()) await verify(on, i).expect(401);
        expect(expectLimited(await verify(b, 3), 3600)).to.match(/^Too many codes tried from this address/);
        expectLimited(await verify(a, 4), 3600);
      });

      it("code guesses through one app: OTP_VERIFY_PER_APP_PER_HOUR in total, then 429 on either instance", async () => {
        const [a, b] = await twoInstances({ otp: { verifyPerAppPerHour: 2 } });
        const { token } = await a.appWithToken("binding app");
        const verify = (on: Instance, i: number) =>
          request(on.app)
            .post(VERIFY)
            .set("Authorization", `Bearer ${token}`)
            .set("X-Forwarded-For", `203.0.113.${i + 1}`)
            .send({ phone: phone(i), token: "123456" });
        await verify(a, 0).expect(401);
        await verify(b, 1).expect(401);
        expect(expectLimited(await verify(a, 2), 3600)).to.match(/^Too many codes tried through this app/);
        expectLimited(await verify(b, 3), 3600);
      });
    });

    describe("the token endpoint (POST /v1/auth)", () => {
      const auth = (on: Instance, from: string, clientId: string, secret: string) =>
        request(on.app)
          .post("/v1/auth")
          .set("X-Forwarded-For", from)
          .type("form")
          .send({ client_id: clientId, client_secret: secret });

      it("guesses per address: AUTH_PER_IP_PER_MINUTE in total across instances, then 429, right secret or not", async () => {
        const [a, b] = await twoInstances({ authLimits: { perIpPerMinute: 3, perClientPerMinute: 1000 } });
        const { app: victim, clientSecret } = await a.appWithToken("victim");
        for (const [i, on] of [a, b, a].entries()) await auth(on, "203.0.113.7", `cid_guess${i}`, "x").expect(401);
        const detail = expectLimited(await auth(b, "203.0.113.7", victim.clientId, clientSecret), 60);
        expect(detail).to.equal("Too many token requests from this address; retry in 60 s");
        expectLimited(await auth(a, "203.0.113.7", victim.clientId, clientSecret), 60);
        await auth(b, "203.0.113.8", victim.clientId, clientSecret).expect(200);
      });

      it("guesses per address, twenty at once across both instances: AUTH_PER_IP_PER_MINUTE judged, the rest 429", async () => {
        const [a, b] = await twoInstances({ authLimits: { perIpPerMinute: 3, perClientPerMinute: 1000 } });
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => auth(i % 2 ? b : a, "203.0.113.7", `cid_guess${i}`, "x")),
        );
        expect(answers.filter((res) => res.status === 401)).to.have.length(3);
        expect(answers.filter((res) => res.body.code === "RATE_LIMITED")).to.have.length(17);
      });

      it("tokens per client id: AUTH_PER_CLIENT_PER_MINUTE in total across instances, then 429 on either", async () => {
        const [a, b] = await twoInstances({ authLimits: { perIpPerMinute: 1000, perClientPerMinute: 3 } });
        const { app: looping, clientSecret } = await b.appWithToken("looping app");
        for (const [i, on] of [a, b, a].entries())
          await auth(on, `198.51.100.${i}`, looping.clientId, clientSecret).expect(200);
        const detail = expectLimited(await auth(b, "198.51.100.9", looping.clientId, clientSecret), 60);
        expect(detail).to.equal("Too many tokens for this client id; retry in 60 s");
        expectLimited(await auth(a, "198.51.100.8", looping.clientId, clientSecret), 60);
      });
    });

    describe("an app's spending requests", () => {
      /** Two instances that accept wallet requests on `localhost`, and an app there acting for `runaway:…` ids. */
      const spender = async (policy: PolicySettings) => {
        const idle = {
          name: "localhost",
          chainId: 31337,
          provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
        };
        const [a, b] = await twoInstances({}, { chains: new Map([["localhost", idle]]), txChains: ["localhost"] });
        const { app: runaway, token } = await a.appWithToken("runaway", true);
        const repos = await a.repositories;
        await repos.providers.register(runaway.id, "runaway", hs256Provider(PROOF_SECRET));
        await repos.apps.setPolicy(runaway.id, policy);
        const post = (on: Instance, key: string) =>
          request(on.app)
            .post("/v1/kernel/tx")
            .set({ Authorization: `Bearer ${token}`, "Idempotency-Key": key })
            .send({ userId: "runaway:alice", chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth: "" });
        const stored = async () => (await repos.transactions.countByStatus()).reduce((sum, row) => sum + row.count, 0);
        return { a, b, post, stored };
      };

      it("its request rate: N per minute in total across instances, the N+1th 429 whichever instance it hits", async () => {
        const { a, b, post, stored } = await spender({ rate: { requests: 3, perSeconds: 60 } });
        for (const [i, on] of [a, b, a].entries()) expect((await post(on, `r${i}`)).status).to.equal(202);
        for (const [i, on] of [b, a].entries()) expectLimited(await post(on, `over${i}`), 60);
        expect(await stored()).to.equal(3);
      });

      it("its request rate, twenty requests at once across both instances: N accepted, the rest 429", async () => {
        const { a, b, post, stored } = await spender({ rate: { requests: 3, perSeconds: 60 } });
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 ? b : a, `r${i}`)));
        expect(answers.filter((res) => res.status === 202)).to.have.length(3);
        expect(answers.filter((res) => res.body.code === "RATE_LIMITED")).to.have.length(17);
        expect(await stored()).to.equal(3);
      });

      it("its gas budget: twenty requests at once across both instances reserve no more than the budget", async function () {
        const { a, b, post, stored } = await spender({ budgetGas: 2n * ONE_REQUEST, periodSeconds: 3600 });
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 ? b : a, `b${i}`)));
        expect(answers.filter((res) => res.status === 202)).to.have.length(2);
        expect(answers.filter((res) => res.body.code === "BUDGET_EXCEEDED")).to.have.length(18);
        expect(await stored()).to.equal(2);
      });
    });
  });
}
