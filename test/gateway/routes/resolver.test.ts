import { expect } from "chai";
import request from "supertest";
import { SignJWT } from "jose";
import golden from "../../vectors/addresses.json";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";
import { hs256Provider } from "../../helpers/providerProofs";

const vector = (userId: string) => {
  const v = golden.vectors.find((x) => x.input === userId);
  if (!v) throw new Error(`no golden vector for ${userId}`);
  return v;
};
const ALICE = vector("github:alice");
const PHONE = vector("tel:15551234567");
const SECRET = "provider-proof-secret-of-at-least-32-chars";

describe("POST /v1/resolver", () => {
  const { app, appWithToken, setClock, repositories } = buildTestApp();
  afterEach(() => setClock(TEST_NOW));

  it("resolves ids sent as application/json, in request order", async () => {
    const res = await request(app).post("/v1/resolver").send({ userIds: "github:alice,tel:15551234567" }).expect(200);
    expect(res.body).to.deep.equal({
      updatedAt: TEST_NOW.toISOString(),
      accountType: "kernel",
      users: [
        {
          userId: "github:alice",
          canonicalUserId: "github:alice",
          accountAddress: ALICE.kernel,
          ensName: "alice.github.idwallet.eth",
        },
        {
          userId: "tel:15551234567",
          canonicalUserId: "tel:15551234567",
          accountAddress: PHONE.kernel,
          ensName: "15551234567.tel.idwallet.eth",
        },
      ],
    });
  });

  it("reads the JSON body sent as text/plain, as the spec's sample call does", async () => {
    const res = await request(app)
      .post("/v1/resolver")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify({ userIds: "github:alice" }))
      .expect(200);
    expect(res.body.users).to.deep.equal([
      {
        userId: "github:alice",
        canonicalUserId: "github:alice",
        accountAddress: ALICE.kernel,
        ensName: "alice.github.idwallet.eth",
      },
    ]);
  });

  it("ignores spaces around ids, echoes each id as sent and keeps duplicates", async () => {
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: " GitHub:Alice , tel:+1 (555) 123-4567,github:alice" })
      .expect(200);
    expect(res.body.users).to.deep.equal([
      {
        userId: "GitHub:Alice",
        canonicalUserId: "github:alice",
        accountAddress: ALICE.kernel,
        ensName: "alice.github.idwallet.eth",
      },
      {
        userId: "tel:+1 (555) 123-4567",
        canonicalUserId: "tel:15551234567",
        accountAddress: PHONE.kernel,
        ensName: "15551234567.tel.idwallet.eth",
      },
      {
        userId: "github:alice",
        canonicalUserId: "github:alice",
        accountAddress: ALICE.kernel,
        ensName: "alice.github.idwallet.eth",
      },
    ]);
  });

  it("answers the deprecated base account type when asked", async () => {
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: "github:alice", accountType: "base" })
      .expect(200);
    expect(res.body.accountType).to.equal("base");
    expect(res.body.users[0].accountAddress).to.equal(ALICE.base);
  });

  it("matches every golden vector", async () => {
    // The vectors' app-owned providers are answered once registered.
    const { app: owner } = await appWithToken("vector owner");
    const appOwned = [...new Set(golden.vectors.map((v) => v.userId.split(":")[0]!))].filter(
      (provider) =>
        !["tel", "email", "github", "twitter", "x", "discord", "telegram", "google", "apple"].includes(provider),
    );
    for (const provider of appOwned)
      await (await repositories).providers.register(owner.id, provider, hs256Provider(SECRET));
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: golden.vectors.map((v) => v.userId).join(",") })
      .expect(200);
    expect(res.body.users.map((u: { accountAddress: string }) => u.accountAddress)).to.deep.equal(
      golden.vectors.map((v) => v.kernel),
    );
  });

  it("names every invalid id with its position and reason", async () => {
    const res = await request(app).post("/v1/resolver").send({ userIds: "github:alice,nocolon,,tel:12ab" }).expect(400);
    expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Invalid user id",
      status: 400,
      code: "INVALID_USER_ID",
      detail: '3 of the user ids are invalid: "nocolon", "", "tel:12ab"',
      invalidUserIds: [
        { index: 1, userId: "nocolon", reason: res.body.invalidUserIds[0].reason },
        { index: 2, userId: "", reason: "empty user id" },
        { index: 3, userId: "tel:12ab", reason: res.body.invalidUserIds[2].reason },
      ],
      instance: "/v1/resolver",
      requestId: res.headers["x-request-id"],
    });
    expect(res.body.invalidUserIds[0].reason).to.match(/provider/);
    expect(res.body.invalidUserIds[2].reason).to.match(/digit|phone|tel/i);
  });

  it("gives no address for a provider nobody registered, where funds would wait for a future registrant (400)", async () => {
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: "github:alice,nosuchprovider:alice,nosuchprovider:bob" })
      .expect(400);
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Unknown provider",
      status: 400,
      code: "UNKNOWN_PROVIDER",
      detail:
        '2 of the user ids are of a provider neither built-in nor registered: "nosuchprovider:alice", "nosuchprovider:bob"',
      invalidUserIds: [
        { index: 1, userId: "nosuchprovider:alice", reason: "unknown provider nosuchprovider" },
        { index: 2, userId: "nosuchprovider:bob", reason: "unknown provider nosuchprovider" },
      ],
      instance: "/v1/resolver",
      requestId: res.headers["x-request-id"],
    });
    // With an invalid id among them, the answer is INVALID_USER_ID naming both kinds.
    const mixed = await request(app).post("/v1/resolver").send({ userIds: "nocolon,nosuchprovider:alice" }).expect(400);
    expect(mixed.body.code).to.equal("INVALID_USER_ID");
    expect(mixed.body.invalidUserIds.map((i: { index: number }) => i.index)).to.deep.equal([0, 1]);
  });

  it("answers each id's ENS name, null when it has none, whatever the account type", async () => {
    const ids = {
      "x:@JACK_dorsey": "jack-dorsey.x.idwallet.eth",
      "discord:jack.dorsey_": "jack.dorsey-.discord.idwallet.eth",
      "google:Someone@Gmail.com": "someone.at.gmail.com.google.idwallet.eth",
      "email:alice@example.com": "alice.at.example.com.email.idwallet.eth",
      "email:a+tag@example.com": null,
      "x:ab__cd": null,
      "email:x.at.y@example.com": null,
    };
    for (const accountType of ["kernel", "base"]) {
      const res = await request(app)
        .post("/v1/resolver")
        .send({ userIds: Object.keys(ids).join(","), accountType })
        .expect(200);
      expect(
        res.body.users.map((u: { ensName: string | null }) => u.ensName),
        accountType,
      ).to.deep.equal(Object.values(ids));
    }
  });

  it("names an app provider's ids while it is registered; after `providers remove` they keep their wallets, not their names", async () => {
    const { app: owner } = await appWithToken("names owner");
    const repos = await repositories;
    const ask = async () =>
      (await request(app).post("/v1/resolver").send({ userIds: "named:alice,named:Alice,named:@alice" }).expect(200))
        .body.users as { canonicalUserId: string; accountAddress: string; ensName: string | null }[];
    await repos.providers.register(owner.id, "named", hs256Provider(SECRET));
    const registered = await ask();
    // Subjects are case-sensitive: only one already normalized for ENS has a name.
    expect(registered.map((u) => u.ensName)).to.deep.equal(["alice.named.idwallet.eth", null, null]);
    await repos.providers.remove("named");
    const removed = await ask();
    expect(removed.map((u) => u.ensName)).to.deep.equal([null, null, null]);
    expect(removed.map((u) => u.accountAddress)).to.deep.equal(registered.map((u) => u.accountAddress));
  });

  it("names ids under the configured ENS_DOMAIN", async () => {
    const other = buildTestApp({ ens: { domain: "wallets.example.eth" } });
    const res = await request(other.app).post("/v1/resolver").send({ userIds: "x:jack_dorsey" }).expect(200);
    expect(res.body.users[0].ensName).to.equal("jack-dorsey.x.wallets.example.eth");
    other.close();
  });

  it("an attacker asks for wallets of ids no provider can issue, to catch payments sent to look-alikes: 400 INVALID_USER_ID", async () => {
    // x:jack-dorsey would be the name jack-dorsey.x.<domain> of x:jack_dorsey; the others once had golden vectors.
    const ids = ["x:jack-dorsey", "github:alice.eth", "discord:user#1234", "telegram:Δοκιμή"];
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: ["github:alice", ...ids].join(",") })
      .expect(400);
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Invalid user id",
      status: 400,
      code: "INVALID_USER_ID",
      detail: `4 of the user ids are invalid: ${ids.map((id) => JSON.stringify(id)).join(", ")}`,
      invalidUserIds: [
        { index: 1, userId: ids[0], reason: "an x username is 1 to 15 characters of a-z, 0-9 and '_'" },
        {
          index: 2,
          userId: ids[1],
          reason:
            "a github username is 1 to 39 characters of a-z, 0-9 and '-', not starting or ending with '-', without '--'",
        },
        {
          index: 3,
          userId: ids[2],
          reason:
            "a discord username is 2 to 32 characters of a-z, 0-9, '_' and '.', without '..', not starting or ending with '.'",
        },
        {
          index: 4,
          userId: ids[3],
          reason:
            "a telegram username is 5 to 32 characters of a-z, 0-9 and '_', starting with a letter, not ending with '_'",
        },
      ],
      instance: "/v1/resolver",
      requestId: res.headers["x-request-id"],
    });
  });

  it("answers a removed provider's ids (its wallets may hold funds) and a registered one's", async () => {
    const { app: owner } = await appWithToken("owner");
    const repos = await repositories;
    await repos.providers.register(owner.id, "gone", hs256Provider(SECRET));
    await request(app).post("/v1/resolver").send({ userIds: "gone:alice" }).expect(200);
    await repos.providers.remove("gone");
    await request(app).post("/v1/resolver").send({ userIds: "gone:alice" }).expect(200);
  });

  const invalidBodies: [string, unknown, string][] = [
    ["no userIds", {}, "/userIds"],
    ["userIds not a string", { userIds: ["github:alice"] }, "/userIds"],
    ["empty userIds", { userIds: "" }, "/userIds"],
    ["unknown account type", { userIds: "github:alice", accountType: "safe" }, "/accountType"],
  ];
  for (const [name, body, pointer] of invalidBodies) {
    it(`refuses a body with ${name} (400 INVALID_REQUEST naming ${pointer})`, async () => {
      const res = await request(app)
        .post("/v1/resolver")
        .send(body as object)
        .expect(400);
      expect(res.body).to.include({ status: 400, code: "INVALID_REQUEST", title: "Invalid request" });
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([pointer]);
    });
  }

  it("refuses a body that is not JSON (400 MALFORMED_JSON)", async () => {
    const res = await request(app)
      .post("/v1/resolver")
      .set("Content-Type", "application/json")
      .send("{userIds:")
      .expect(400);
    expect(res.body).to.include({ code: "MALFORMED_JSON", status: 400 });
  });

  it("refuses a form-encoded body (415)", async () => {
    const res = await request(app).post("/v1/resolver").type("form").send("userIds=github:alice").expect(415);
    expect(res.body).to.include({ code: "UNSUPPORTED_MEDIA_TYPE", status: 415 });
  });

  it("refuses more than the maximum number of ids (400 TOO_MANY_USER_IDS)", async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `github:u${i}`).join(",");
    const res = await request(app).post("/v1/resolver").send({ userIds: ids }).expect(400);
    expect(res.body).to.deep.equal({
      type: "about:blank",
      title: "Too many user ids",
      status: 400,
      code: "TOO_MANY_USER_IDS",
      detail: "At most 1000 user ids per request",
      maxUserIds: 1000,
      instance: "/v1/resolver",
      requestId: res.headers["x-request-id"],
    });
  });

  it("refuses 100,000 ids quickly", async () => {
    const started = Date.now();
    const res = await request(app)
      .post("/v1/resolver")
      .send({ userIds: Array.from({ length: 100_000 }, () => "x:y").join(",") });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal("TOO_MANY_USER_IDS");
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  it("refuses a 10 MB body quickly (413)", async () => {
    const started = Date.now();
    const res = await request(app)
      .post("/v1/resolver")
      .set("Content-Type", "application/json")
      .send(`{"userIds":"${"a".repeat(10 * 1024 * 1024)}"}`);
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  describe("bearer token", () => {
    it("works without a token and with a valid one", async () => {
      const { token } = await appWithToken();
      await request(app).post("/v1/resolver").send({ userIds: "github:alice" }).expect(200);
      await request(app)
        .post("/v1/resolver")
        .auth(token, { type: "bearer" })
        .send({ userIds: "github:alice" })
        .expect(200);
    });

    const cases: [string, () => Promise<string>, string][] = [
      ["a malformed header", async () => "Basic abc", "MALFORMED_TOKEN"],
      ["a token that is not a JWT", async () => "Bearer not-a-jwt", "INVALID_TOKEN"],
      [
        "a token signed with another key",
        async () =>
          `Bearer ${await new SignJWT({ cid: "cid_1" })
            .setProtectedHeader({ alg: "HS256" })
            .setIssuer("idwallet")
            .setAudience("idwallet-api")
            .setSubject("app_1")
            .setJti("x")
            .setExpirationTime("1h")
            .sign(new TextEncoder().encode("another-secret-another-secret-another"))}`,
        "INVALID_TOKEN",
      ],
    ];
    for (const [name, header, code] of cases) {
      it(`refuses ${name} (401 ${code})`, async () => {
        const res = await request(app)
          .post("/v1/resolver")
          .set("Authorization", await header())
          .send({ userIds: "github:alice" })
          .expect(401);
        expect(res.body).to.include({ status: 401, code, title: "Unauthorized" });
        expect(res.headers["www-authenticate"]).to.match(/^Bearer /);
      });
    }

    it("refuses an expired token (401 TOKEN_EXPIRED)", async () => {
      const { token } = await appWithToken();
      setClock(new Date(TEST_NOW.getTime() + 3601_000));
      const res = await request(app)
        .post("/v1/resolver")
        .auth(token, { type: "bearer" })
        .send({ userIds: "github:alice" });
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal("TOKEN_EXPIRED");
    });

    it("requires a token when configured to", async () => {
      const strict = buildTestApp({ resolver: { requireAuth: true } });
      const res = await request(strict.app).post("/v1/resolver").send({ userIds: "github:alice" }).expect(401);
      expect(res.body.code).to.equal("MISSING_TOKEN");
      const { token } = await strict.appWithToken();
      await request(strict.app)
        .post("/v1/resolver")
        .auth(token, { type: "bearer" })
        .send({ userIds: "github:alice" })
        .expect(200);
      strict.close();
    });
  });
});
