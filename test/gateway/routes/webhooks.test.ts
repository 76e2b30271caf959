import { expect } from "chai";
import request, { type Response } from "supertest";
import { buildTestApp } from "../../helpers/testApp";

const HOOK = "https://hooks.example.com/idwallet";

/** The exact problem body an answer to a request of `instance` should carry (the request id from the answer). */
const problemOf = (res: Response, instance: string, fields: Record<string, unknown>) => ({
  type: "about:blank",
  ...fields,
  instance,
  requestId: res.headers["x-request-id"],
});

/** A refused webhook URL: 400 WEBHOOK_URL_NOT_ALLOWED, `reason` pointing at /url. */
const urlRefusal = (res: Response, reason: string) =>
  problemOf(res, "/v1/webhooks", {
    title: "Invalid request",
    status: 400,
    code: "WEBHOOK_URL_NOT_ALLOWED",
    detail: `The webhook URL is not allowed: ${reason}`,
    errors: [{ pointer: "/url", detail: reason }],
  });

describe("API: POST, GET /v1/webhooks and DELETE /v1/webhooks/{id} (an app's own webhook endpoints)", () => {
  /** The test app with two apps, A and B, and request helpers bound to each one's token. */
  const setup = async (overrides: Record<string, unknown> = {}) => {
    const built = buildTestApp(overrides);
    const a = await built.appWithToken("app A");
    const b = await built.appWithToken("app B");
    const as = (token: string) => ({
      register: (body: object) => request(built.app).post("/v1/webhooks").auth(token, { type: "bearer" }).send(body),
      list: () => request(built.app).get("/v1/webhooks").auth(token, { type: "bearer" }),
      remove: (id: string) => request(built.app).delete(`/v1/webhooks/${id}`).auth(token, { type: "bearer" }),
    });
    /** Every endpoint stored, of any app. */
    const stored = async () => (await built.repositories).webhooks.listEndpoints();
    return { ...built, a: { ...a, ...as(a.token) }, b: { ...b, ...as(b.token) }, stored };
  };

  it("registers an endpoint: 201, Location, the whsec_ secret once, and never again in a list", async () => {
    const { a, stored, close } = await setup();
    const res = await a.register({ url: HOOK, events: ["transaction.included", "safe.failed"] });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.headers.location).to.equal(`/v1/webhooks/${res.body.id}`);
    expect(res.body).to.have.all.keys("id", "url", "events", "status", "secret", "createdAt");
    expect(res.body).to.include({ url: HOOK, status: "enabled", createdAt: "2026-11-22T12:00:00.000Z" });
    expect(res.body.events).to.deep.equal(["transaction.included", "safe.failed"]);
    expect(res.body.id).to.match(/^ep_[0-9a-f]{32}$/);
    // Standard Webhooks: whsec_ and the base64 of 32 random bytes.
    expect(res.body.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const list = await a.list();
    expect(list.status).to.equal(200);
    expect(list.body).to.deep.equal({
      endpoints: [
        {
          id: res.body.id,
          url: HOOK,
          events: ["transaction.included", "safe.failed"],
          status: "enabled",
          disabledReason: null,
          createdAt: "2026-11-22T12:00:00.000Z",
          updatedAt: "2026-11-22T12:00:00.000Z",
        },
      ],
    });
    expect(list.text).to.not.include(res.body.secret).and.not.include("whsec_");
    expect((await stored()).map((e) => e.id)).to.deep.equal([res.body.id]);
    close();
  });

  it("no events: subscribed to every event (an empty list)", async () => {
    const { a, close } = await setup();
    const res = await a.register({ url: HOOK });
    expect([res.status, res.body.events]).to.deep.equal([201, []]);
    close();
  });

  it("another app cannot list or delete A's endpoint: B lists nothing, deleting is 404 NOT_FOUND, A's endpoint stays", async () => {
    const { a, b, stored, close } = await setup();
    const { body: created } = await a.register({ url: HOOK });
    const listed = await b.list();
    expect([listed.status, listed.body]).to.deep.equal([200, { endpoints: [] }]);

    const removed = await b.remove(created.id);
    expect(removed.status).to.equal(404);
    const notFound = {
      title: "Not found",
      status: 404,
      code: "NOT_FOUND",
      detail: "No webhook endpoint with this id",
    };
    expect(removed.body).to.deep.equal(problemOf(removed, `/v1/webhooks/${created.id}`, notFound));
    // The same answer as an id that does not exist: B learns nothing of A's ids.
    const unknown = await b.remove("ep_00000000000000000000000000000000");
    expect(unknown.body).to.deep.equal(
      problemOf(unknown, "/v1/webhooks/ep_00000000000000000000000000000000", notFound),
    );

    expect((await stored()).map((e) => e.id)).to.deep.equal([created.id]);
    expect((await a.list()).body.endpoints.map((e: { id: string }) => e.id)).to.deep.equal([created.id]);
    close();
  });

  it("the owner deletes its endpoint: 204, then gone (a second delete is 404)", async () => {
    const { a, stored, close } = await setup();
    const { body: created } = await a.register({ url: HOOK });
    const res = await a.remove(created.id);
    expect([res.status, res.text]).to.deep.equal([204, ""]);
    expect(await stored()).to.deep.equal([]);
    expect((await a.remove(created.id)).status).to.equal(404);
    close();
  });

  it("SSRF: plain http, private, metadata and loopback addresses are 400 WEBHOOK_URL_NOT_ALLOWED, nothing stored", async () => {
    const { a, stored, close } = await setup();
    const cases: [string, string][] = [
      ["http://example.com/", "the URL must use https"],
      ["https://10.0.0.1/x", "the address 10.0.0.1 is private"],
      ["https://169.254.169.254/latest/meta-data", "the address 169.254.169.254 is link-local"],
      ["https://[::1]/", "the address ::1 is loopback"],
      ["http://127.0.0.1:9/", "the address 127.0.0.1 is loopback"],
      ["https://2130706433/", "the address 127.0.0.1 is loopback"],
      ["https://localhost/", "the host localhost is loopback"],
      ["https://user:pass@example.com/", "the URL must not contain a username or password"],
    ];
    for (const [url, reason] of cases) {
      const res = await a.register({ url });
      expect(res.status, url).to.equal(400);
      expect(res.body, url).to.deep.equal(urlRefusal(res, reason));
    }
    expect(await stored()).to.deep.equal([]);
    close();
  });

  it("with WEBHOOK_ALLOW_LOOPBACK (the local stack's setting) a loopback http endpoint is accepted", async () => {
    const { a, close } = await setup({ webhooks: { allowLoopback: true } });
    const res = await a.register({ url: "http://127.0.0.1:9/hook" });
    expect([res.status, res.body.url]).to.deep.equal([201, "http://127.0.0.1:9/hook"]);
    close();
  });

  it("refuses unknown event names, repeated events, unknown fields and a missing or over-long url: 400 INVALID_REQUEST", async () => {
    const { a, stored, close } = await setup();
    const cases: [object, { pointer: string; detail: string }[]][] = [
      [
        { url: HOOK, events: ["transaction.included", "wallet.drained"] },
        [
          {
            pointer: "/events/1",
            detail:
              'Invalid option: expected one of "transaction.submitted"|"transaction.included"|"transaction.failed"|' +
              '"safe.submitted"|"safe.included"|"safe.failed"',
          },
        ],
      ],
      [
        { url: HOOK, events: ["safe.failed", "safe.failed"] },
        [{ pointer: "/events", detail: "each event type at most once" }],
      ],
      [{ url: HOOK, event: ["safe.failed"] }, [{ pointer: "/event", detail: "Unknown field" }]],
      [{ events: [] }, [{ pointer: "/url", detail: "Invalid input: expected string, received undefined" }]],
      [
        { url: `https://example.com/${"a".repeat(2048)}` },
        [{ pointer: "/url", detail: "Too big: expected string to have <=2048 characters" }],
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await a.register(body);
      expect(res.body, JSON.stringify(body)).to.deep.equal(
        problemOf(res, "/v1/webhooks", {
          title: "Invalid request",
          status: 400,
          code: "INVALID_REQUEST",
          detail: "The request failed validation",
          errors,
        }),
      );
    }
    expect(await stored()).to.deep.equal([]);
    close();
  });

  it("an app past WEBHOOK_MAX_ENDPOINTS_PER_APP gets 409 WEBHOOK_LIMIT_REACHED; another app is not limited by it", async () => {
    const { a, b, stored, close } = await setup({ webhooks: { maxEndpointsPerApp: 2 } });
    for (const n of [1, 2]) expect((await a.register({ url: `${HOOK}/${n}` })).status).to.equal(201);
    const res = await a.register({ url: `${HOOK}/3` });
    expect(res.status).to.equal(409);
    expect(res.body).to.deep.equal(
      problemOf(res, "/v1/webhooks", {
        title: "Too many webhook endpoints",
        status: 409,
        code: "WEBHOOK_LIMIT_REACHED",
        detail: "An app may register at most 2",
        limit: 2,
      }),
    );
    expect(await stored()).to.have.length(2);
    expect((await b.register({ url: HOOK })).status).to.equal(201);
    close();
  });

  it("no bearer token: 401 MISSING_TOKEN on every webhook route, nothing stored or removed", async () => {
    const { app, a, stored, close } = await setup();
    const { body: created } = await a.register({ url: HOOK });
    const target = `/v1/webhooks/${created.id}`;
    for (const [path, req] of [
      ["/v1/webhooks", request(app).post("/v1/webhooks").send({ url: HOOK })],
      ["/v1/webhooks", request(app).get("/v1/webhooks")],
      [target, request(app).delete(target)],
    ] as const) {
      const res = await req;
      expect(res.status).to.equal(401);
      // RFC 6750 §3.1: no error code when the request sent no token.
      expect(res.headers["www-authenticate"]).to.equal('Bearer realm="idwallet"');
      expect(res.body).to.deep.equal(
        problemOf(res, path, {
          title: "Unauthorized",
          status: 401,
          code: "MISSING_TOKEN",
          detail: "Send Authorization: Bearer <the app token from POST /v1/auth>",
        }),
      );
    }
    expect((await stored()).map((e) => e.id)).to.deep.equal([created.id]);
    close();
  });

  it("without SECRETS_KEY the secret cannot be sealed: 503 WEBHOOKS_NOT_CONFIGURED, nothing stored", async () => {
    const { a, stored, close } = await setup({ secrets: {} });
    const res = await a.register({ url: HOOK });
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.equal(
      problemOf(res, "/v1/webhooks", {
        title: "Webhooks not configured",
        status: 503,
        code: "WEBHOOKS_NOT_CONFIGURED",
        detail: "This deployment has no SECRETS_KEY",
      }),
    );
    expect(await stored()).to.deep.equal([]);
    close();
  });

  it("in maintenance every webhook route is 503 MAINTENANCE, and nothing is stored or removed", async () => {
    const { a, stored, setStoredMaintenance, close } = await setup();
    const { body: created } = await a.register({ url: HOOK });
    await setStoredMaintenance(true, "Upgrading");
    const answers: [string, Response][] = [
      ["/v1/webhooks", await a.register({ url: `${HOOK}/2` })],
      ["/v1/webhooks", await a.list()],
      [`/v1/webhooks/${created.id}`, await a.remove(created.id)],
    ];
    for (const [path, res] of answers) {
      expect(res.status).to.equal(503);
      expect(res.headers["retry-after"]).to.equal("300");
      expect(res.body).to.deep.equal(
        problemOf(res, path, {
          title: "Service in maintenance",
          status: 503,
          code: "MAINTENANCE",
          detail: "Upgrading",
        }),
      );
    }
    expect((await stored()).map((e) => e.id)).to.deep.equal([created.id]);
    close();
  });
});
