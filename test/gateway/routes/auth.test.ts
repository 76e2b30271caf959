import { expect } from "chai";
import crypto from "node:crypto";
import type { NodeHandler } from "../../../gateway/http/nodeHandler";
import request from "supertest";
import { SignJWT } from "jose";
import { TEST_NOW, TEST_TOKEN_SECRET, buildTestApp } from "../../helpers/testApp";
import { scryptHash } from "../storage/builders";

const resolveWith = (app: NodeHandler, token: string) =>
  request(app).post("/v1/resolver").auth(token, { type: "bearer" }).send({ userIds: "github:alice" });

describe("POST /v1/auth (OAuth 2.0 client credentials)", () => {
  const t = buildTestApp();
  after(() => t.close());
  afterEach(() => t.setClock(TEST_NOW));

  it("issues a 60-minute bearer token for form credentials, not to be cached", async () => {
    const { app: registered, clientSecret } = await t.appWithToken("form app");
    const res = await request(t.app)
      .post("/v1/auth")
      .type("form")
      .send({ grant_type: "client_credentials", client_id: registered.clientId, client_secret: clientSecret })
      .expect(200);
    expect(res.body).to.have.keys(["access_token", "token_type", "expires_in"]);
    expect(res.body).to.include({ token_type: "Bearer", expires_in: 3600 });
    expect(res.headers["cache-control"]).to.equal("no-store");
    await resolveWith(t.app, res.body.access_token).expect(200);
  });

  it("accepts HTTP Basic client authentication, grant_type optional", async () => {
    const { app: registered, clientSecret } = await t.appWithToken("basic app");
    const res = await request(t.app).post("/v1/auth").auth(registered.clientId, clientSecret).expect(200);
    expect(res.body.token_type).to.equal("Bearer");
  });

  it("refuses a wrong secret, an unknown client and a Basic failure with invalid_client (401)", async () => {
    const { app: registered } = await t.appWithToken("victim");
    const wrong = await request(t.app)
      .post("/v1/auth")
      .type("form")
      .send({ client_id: registered.clientId, client_secret: "wrong" })
      .expect(401);
    expect(wrong.body).to.include({ status: 401, code: "INVALID_CLIENT", error: "invalid_client" });
    expect(wrong.body.error_description).to.be.a("string");
    await request(t.app)
      .post("/v1/auth")
      .type("form")
      .send({ client_id: "cid_nobody", client_secret: "x" })
      .expect(401);
    const basic = await request(t.app).post("/v1/auth").auth(registered.clientId, "wrong").expect(401);
    expect(basic.headers["www-authenticate"]).to.match(/^Basic /);
  });

  const badRequests: [string, (r: request.Test) => request.Test, string][] = [
    ["no credentials", (r) => r.type("form").send({}), "invalid_request"],
    ["only a client id", (r) => r.type("form").send({ client_id: "x" }), "invalid_request"],
    [
      "another grant type",
      (r) => r.type("form").send({ grant_type: "password", client_id: "x", client_secret: "y" }),
      "unsupported_grant_type",
    ],
    ["a JSON body", (r) => r.send({ client_id: "x", client_secret: "y" }), "invalid_request"],
    [
      "Basic and form credentials together",
      (r) => r.auth("a", "b").type("form").send({ client_id: "x", client_secret: "y" }),
      "invalid_request",
    ],
  ];
  for (const [name, build, error] of badRequests) {
    it(`refuses ${name} with ${error} (400)`, async () => {
      const res = await build(request(t.app).post("/v1/auth")).expect(400);
      expect(res.body).to.include({ status: 400, error });
    });
  }

  it("stops a disabled app's live tokens at once and refuses it new ones", async () => {
    const { app: registered, clientSecret, token } = await t.appWithToken("to disable");
    await resolveWith(t.app, token).expect(200);
    await (await t.repositories).apps.setStatus(registered.id, "disabled");
    const res = await resolveWith(t.app, token).expect(401);
    expect(res.body.code).to.equal("APP_DISABLED");
    await request(t.app).post("/v1/auth").auth(registered.clientId, clientSecret).expect(401);
  });

  it("a rotated secret's old tokens get 401 TOKEN_REVOKED, a cached one and one from the same second included", async () => {
    const { app: registered, clientSecret, token: issuedEarlier } = await t.appWithToken("to rotate");
    const fromEndpoint = await request(t.app).post("/v1/auth").auth(registered.clientId, clientSecret).expect(200);
    const oldToken: string = fromEndpoint.body.access_token;
    // Both verified once, so the verified-token cache holds them.
    await resolveWith(t.app, oldToken).expect(200);
    await resolveWith(t.app, issuedEarlier).expect(200);
    // The test clock stands still: the rotation and every token here share one second.
    const rotated = await (await t.repositories).apps.rotateSecret(registered.id);
    for (const revoked of [oldToken, issuedEarlier]) {
      const res = await resolveWith(t.app, revoked).expect(401);
      expect(res.body).to.include({ status: 401, code: "TOKEN_REVOKED" });
      expect(res.headers["www-authenticate"]).to.match(/^Bearer /);
    }
    // A token issued from the app as read before the rotation committed (a request racing it) is revoked as well.
    const racing = await t.tokens.issue(registered);
    expect((await resolveWith(t.app, racing.token).expect(401)).body.code).to.equal("TOKEN_REVOKED");
    await request(t.app).post("/v1/auth").auth(registered.clientId, clientSecret).expect(401);
    const fresh = await request(t.app).post("/v1/auth").auth(registered.clientId, rotated.clientSecret).expect(200);
    await resolveWith(t.app, fresh.body.access_token).expect(200);
  });

  it("a token from before secret generations (no gen claim) counts as generation 0 and is revoked by a rotation", async () => {
    const { app: registered } = await t.appWithToken("old token");
    const now = Math.floor(TEST_NOW.getTime() / 1000);
    const legacy = await new SignJWT({ cid: registered.clientId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(t.config.auth.issuer)
      .setAudience(t.config.auth.audience)
      .setSubject(registered.id)
      .setJti("legacy-token")
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode(TEST_TOKEN_SECRET));
    await resolveWith(t.app, legacy).expect(200);
    await (await t.repositories).apps.rotateSecret(registered.id);
    expect((await resolveWith(t.app, legacy).expect(401)).body.code).to.equal("TOKEN_REVOKED");
  });

  it("expires tokens after exactly 60 minutes", async () => {
    const { token } = await t.appWithToken("clock app");
    t.setClock(new Date(TEST_NOW.getTime() + 3599_000));
    await resolveWith(t.app, token).expect(200);
    t.setClock(new Date(TEST_NOW.getTime() + 3601_000));
    const res = await resolveWith(t.app, token).expect(401);
    expect(res.body.code).to.equal("TOKEN_EXPIRED");
  });

  it("refuses alg:none and tampered tokens (401 INVALID_TOKEN)", async () => {
    const { token } = await t.appWithToken("tamper app");
    const [header, payload, signature] = token.split(".");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: "app_other" })).toString("base64url")}.${signature}`;
    for (const bad of [none, tampered]) {
      const res = await resolveWith(t.app, bad).expect(401);
      expect(res.body.code).to.equal("INVALID_TOKEN");
    }
  });

  /** Counts crypto.scrypt runs while `run` runs (the service calls it through the module object). */
  async function scryptRuns(run: () => Promise<unknown>): Promise<number> {
    const original = crypto.scrypt;
    let runs = 0;
    (crypto as { scrypt: unknown }).scrypt = (...args: Parameters<typeof crypto.scrypt>) => {
      runs++;
      return (original as (...a: unknown[]) => void)(...args);
    };
    try {
      await run();
    } finally {
      (crypto as { scrypt: unknown }).scrypt = original;
    }
    return runs;
  }

  it("cost amplification: an unauthenticated caller cannot make the token endpoint run scrypt", async () => {
    const { app: registered } = await t.appWithToken("cheap checks");
    const runs = await scryptRuns(async () => {
      await request(t.app).post("/v1/auth").auth("cid_nobody", "x".repeat(43)).expect(401);
      await request(t.app).post("/v1/auth").auth(registered.clientId, "x".repeat(43)).expect(401);
    });
    expect(runs).to.equal(0);
  });

  it("accepts a secret stored as an old scrypt hash and upgrades the row to HMAC-SHA256 on that use", async () => {
    const { app: registered } = await t.appWithToken("legacy hash");
    const secret = "a-secret-issued-before-the-hmac-change-012345";
    const { db } = await t.database;
    await db
      .updateTable("apps")
      .set({ secret_hash: scryptHash(secret) })
      .where("id", "=", registered.id)
      .execute();
    const first = await scryptRuns(() => request(t.app).post("/v1/auth").auth(registered.clientId, secret).expect(200));
    expect(first).to.equal(1);
    const row = await db.selectFrom("apps").select("secret_hash").where("id", "=", registered.id).executeTakeFirst();
    expect(row?.secret_hash).to.match(/^hmac-sha256\$/);
    const again = await scryptRuns(() => request(t.app).post("/v1/auth").auth(registered.clientId, secret).expect(200));
    expect(again).to.equal(0);
  });
});

describe("POST /v1/auth limits (per client id and per address)", () => {
  const form = (app: NodeHandler, clientId: string, secret: string, from: string) =>
    request(app)
      .post("/v1/auth")
      .set("X-Forwarded-For", from)
      .type("form")
      .send({ client_id: clientId, client_secret: secret });

  it("lock-out: an attacker who knows a client id and guesses from many addresses does not stop the app's own token requests", async () => {
    const t = buildTestApp({ trustProxy: 1, authLimits: { perClientPerMinute: 3, perIpPerMinute: 1000 } });
    try {
      const { app: victim, clientSecret } = await t.appWithToken("victim");
      for (let i = 1; i <= 50; i++) await form(t.app, victim.clientId, `guess-${i}`, `198.51.100.${i}`).expect(401);
      // Only the app's own tokens count against its client id; the guesses did not.
      for (let i = 0; i < 3; i++) await form(t.app, victim.clientId, clientSecret, "203.0.113.7").expect(200);
      // An app asking in a loop is stopped once it got its limit of tokens in the minute.
      const res = await form(t.app, victim.clientId, clientSecret, "203.0.113.7").expect(429);
      expect(res.body).to.include({ status: 429, code: "RATE_LIMITED" });
      const retryAfter = Number(res.headers["retry-after"]);
      expect(retryAfter).to.be.within(1, 60);
      expect(res.body.retryAfter).to.equal(retryAfter);
      // Other client ids keep their own budget.
      const { app: other, clientSecret: otherSecret } = await t.appWithToken("bystander");
      await form(t.app, other.clientId, otherSecret, "198.51.100.99").expect(200);
    } finally {
      t.close();
    }
  });

  it("one address across many client ids: after the limit it waits, its /64 included; another /64 does not", async () => {
    const t = buildTestApp({ trustProxy: 1, authLimits: { perClientPerMinute: 1000, perIpPerMinute: 3 } });
    try {
      const { app: registered, clientSecret } = await t.appWithToken("behind the limit");
      for (let i = 1; i <= 3; i++) await form(t.app, `cid_scan${i}`, "x", `2001:db8:1:1::${i}`).expect(401);
      const res = await form(t.app, registered.clientId, clientSecret, "2001:db8:1:1:ffff::1").expect(429);
      expect(res.body).to.include({ status: 429, code: "RATE_LIMITED" });
      expect(res.headers["retry-after"]).to.match(/^\d+$/);
      await form(t.app, registered.clientId, clientSecret, "2001:db8:1:2::1").expect(200);
    } finally {
      t.close();
    }
  });
});
