import { expect } from "chai";
import request from "supertest";
import { buildTestApp } from "../../helpers/testApp";

describe("Maintenance mode", () => {
  it("closes the API with 503 and Retry-After while the stored switch is on, and reopens it", async () => {
    const { app, setStoredMaintenance, close } = buildTestApp();
    await setStoredMaintenance(true, "Upgrading the database");
    const res = await request(app).post("/v1/resolver").send({ userIds: "github:alice" }).expect(503);
    expect(res.headers["retry-after"]).to.equal("300");
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Service in maintenance",
      status: 503,
      code: "MAINTENANCE",
      detail: "Upgrading the database",
      instance: "/v1/resolver",
      requestId: res.headers["x-request-id"],
    });
    await request(app).get("/v1/networks").expect(503);
    await request(app).post("/functions/v1/signInWithOTP").send({}).expect(503);

    // Operations and the API reference stay up.
    await request(app).get("/health").expect(200);
    await request(app).get("/metrics").expect(200);
    await request(app).get("/openapi.json").expect(200);

    await setStoredMaintenance(false);
    await request(app).post("/v1/resolver").send({ userIds: "github:alice" }).expect(200);
    close();
  });

  it("is on from the configuration alone, with its own Retry-After", async () => {
    const { app, close } = buildTestApp({ maintenance: { enabled: "true", retryAfterSeconds: 60 } });
    const res = await request(app).get("/v1/networks").expect(503);
    expect(res.headers["retry-after"]).to.equal("60");
    expect(res.body.code).to.equal("MAINTENANCE");
    close();
  });
});
