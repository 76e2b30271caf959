import { expect } from "chai";
import request from "supertest";
import { capturingLogger } from "../../helpers/capturingLogger";
import { buildTestApp } from "../../helpers/testApp";

describe("Request logging", () => {
  it("logs each request with its id, and never a token, a phone number or a body", async () => {
    const lines: string[] = [];
    const { app, appWithToken, close } = buildTestApp({}, { logger: capturingLogger(lines) });
    const { token } = await appWithToken();
    const res = await request(app)
      .post("/v1/resolver?phone=15559876543")
      .set("X-Request-Id", "req-123")
      .auth(token, { type: "bearer" })
      .send({ userIds: "tel:15551234567" })
      .expect(200);
    expect(res.headers["x-request-id"]).to.equal("req-123");
    close();
    const all = lines.join("\n");
    expect(lines.some((l) => JSON.parse(l).req?.id === "req-123")).to.equal(true);
    expect(all).to.not.include(token);
    expect(all).to.not.include("15551234567");
    expect(all).to.not.include("15559876543");
  });
});
