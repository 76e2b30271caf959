import { expect } from "chai";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { buildTestApp } from "../../helpers/testApp";

/** A chain whose RPC never answers, to prove /health is bounded by its timeout. */
const stalledChain = {
  name: "localhost",
  chainId: 31337,
  provider: { send: () => new Promise<unknown>(() => undefined) },
} as unknown as ChainClient;

describe("Operations endpoints", () => {
  it("GET /health is 200 when the database and chains answer", async () => {
    const { app, close } = buildTestApp();
    const res = await request(app).get("/health").expect(200);
    expect(res.body.status).to.equal("ok");
    expect(res.body.checks.database.status).to.equal("ok");
    close();
  });

  const ADMIN_TOKEN = "health-admin-token-of-at-least-32-characters";
  const failingService = () =>
    buildTestApp(
      { rpcTimeoutMs: 200, healthAdminToken: ADMIN_TOKEN },
      {
        chains: new Map([["localhost", stalledChain]]),
        pingDatabase: async () => {
          throw new Error("SQLITE_CANTOPEN: unable to open /srv/idwallet/data/idwallet.sqlite");
        },
      },
    );

  it("GET /health is 503 within the RPC timeout when a chain does not answer or the database fails", async () => {
    const { app, close } = failingService();
    const started = Date.now();
    const res = await request(app).get("/health").auth(ADMIN_TOKEN, { type: "bearer" }).expect(503);
    expect(Date.now() - started).to.be.lessThan(1500);
    expect(res.body.status).to.equal("degraded");
    expect(res.body.checks.database).to.include({
      status: "failing",
      detail: "SQLITE_CANTOPEN: unable to open /srv/idwallet/data/idwallet.sqlite",
    });
    expect(res.body.checks.chains.localhost).to.include({ status: "failing", detail: "no answer within 200 ms" });
    close();
  });

  it("information leak: GET /health shows an outsider statuses only, no error message, without or with a wrong token", async () => {
    const { app, close } = failingService();
    const outsider = {
      status: "degraded",
      checks: { database: { status: "failing" }, chains: { localhost: { status: "failing" } } },
    };
    const anonymous = await request(app).get("/health").expect(503);
    expect(anonymous.body).to.deep.equal(outsider);
    expect(anonymous.text).to.not.include("SQLITE").and.not.include("/srv/");
    for (const wrong of [`${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1), "x"]) {
      const res = await request(app).get("/health").auth(wrong, { type: "bearer" }).expect(503);
      expect(res.body, wrong).to.deep.equal(outsider);
    }
    expect((await request(app).get("/health").set("Authorization", ADMIN_TOKEN).expect(503)).body).to.deep.equal(
      outsider,
    );
    close();
  });

  it("information leak: with METRICS_TOKEN set, an outsider gets no metrics (which name every app), the scraper does", async () => {
    const token = "m".repeat(40);
    const { app, close, appWithToken } = buildTestApp({ metricsToken: token });
    await appWithToken("tenant with a budget");
    for (const header of [undefined, `Bearer ${token}x`, token]) {
      const req = request(app).get("/metrics");
      const res = await (header === undefined ? req : req.set("Authorization", header)).expect(401);
      expect(res.body).to.include({ code: "INVALID_TOKEN" });
      expect(res.text).to.not.include("idwallet_");
    }
    const scraped = await request(app).get("/metrics").auth(token, { type: "bearer" }).expect(200);
    expect(scraped.text).to.include("idwallet_http_request_duration_seconds");
    close();
  });

  it("GET /health without HEALTH_ADMIN_TOKEN configured shows nobody the details", async () => {
    const { app, close } = buildTestApp(
      {},
      {
        pingDatabase: async () => {
          throw new Error("disk I/O error");
        },
      },
    );
    const res = await request(app).get("/health").auth("undefined", { type: "bearer" }).expect(503);
    expect(res.body).to.deep.equal({ status: "degraded", checks: { database: { status: "failing" }, chains: {} } });
    close();
  });

  it("GET /metrics exposes Prometheus text with the request and resolver counters", async () => {
    const { app, close } = buildTestApp();
    await request(app).post("/v1/resolver").send({ userIds: "github:alice,github:bob" }).expect(200);
    const res = await request(app).get("/metrics").expect(200);
    expect(res.headers["content-type"]).to.match(/^text\/plain/);
    expect(res.text).to.match(/^idwallet_resolved_user_ids_total 2$/m);
    expect(res.text).to.match(
      /idwallet_http_request_duration_seconds_count\{method="POST",route="\/v1\/resolver",status="200"\} 1/,
    );
    close();
  });

  it("answers an unknown route with a 404 problem", async () => {
    const { app, close } = buildTestApp();
    const res = await request(app).get("/v1/nope").expect(404);
    expect(res.body).to.include({ status: 404, code: "NOT_FOUND", title: "Not found" });
    close();
  });
});
