import { expect } from "chai";
import request from "supertest";
import { buildTestApp } from "../../helpers/testApp";

describe("POST /v1/resolver: requests without a token, limited per client", () => {
  it("an anonymous client floods the resolver: 429 RATE_LIMITED past RESOLVER_ANONYMOUS_PER_MINUTE on both transports, while an app's token is not counted", async () => {
    const { app, appWithToken, close } = buildTestApp({ resolver: { anonymousPerMinute: 3 } });
    try {
      const ask = () => request(app).post("/v1/resolver").send({ userIds: "github:alice" });
      // The fast path takes application/json and text/plain; express takes the +json types: one limit for both.
      const viaExpress = () =>
        request(app)
          .post("/v1/resolver")
          .set("Content-Type", "application/vnd.api+json")
          .send(JSON.stringify({ userIds: "github:alice" }));
      expect((await ask()).status).to.equal(200);
      expect((await viaExpress()).status).to.equal(200);
      expect((await ask()).status).to.equal(200);
      for (const refused of [await ask(), await viaExpress()]) {
        expect(refused.status).to.equal(429);
        expect(refused.body).to.include({ code: "RATE_LIMITED" });
        expect(refused.body.detail).to.match(/^At most 3 requests a minute without a bearer token; send one/);
        expect(Number(refused.headers["retry-after"])).to.be.within(1, 60);
      }
      // An app's requests name who sends them: they are the app's to pace, not this limit's.
      const { token } = await appWithToken();
      for (let i = 0; i < 5; i++) {
        const res = await request(app)
          .post("/v1/resolver")
          .set("Authorization", `Bearer ${token}`)
          .send({ userIds: "github:alice" });
        expect(res.status).to.equal(200);
      }
    } finally {
      close();
    }
  });
});
