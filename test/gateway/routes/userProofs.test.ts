import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import { SignJWT, decodeJwt, exportJWK, generateKeyPair } from "jose";
import { mkdtempSync } from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import request, { type Response } from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { openDatabase } from "../../../gateway/storage/database";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";

const TARGET = "0x000000000000000000000000000000000000dEaD";
const PHONE = "+14155552671";
const USER = "tel:14155552671";
const NOW_S = Math.floor(TEST_NOW.getTime() / 1000);

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/** The exact problem body the service answers at `instance`. */
const problem = (res: Response, status: number, code: string, detail: string, instance = "/v1/kernel/tx") => ({
  type: "about:blank",
  title: status === 401 ? "Unauthorized" : "Forbidden",
  status,
  code,
  detail,
  instance,
  requestId: res.headers["x-request-id"],
});

/** The API with two production (not test mode) apps, A and B, each with a bearer token, and a way to act. */
async function setup(overrides: Record<string, unknown> = {}, databasePath?: string) {
  const built = buildTestApp(overrides, {
    chains: new Map([["localhost", idleChain]]),
    txChains: ["localhost"],
    ...(databasePath ? { databasePath } : {}),
  });
  const a = await built.appWithToken("app A", false);
  const b = await built.appWithToken("app B", false);
  /** POST /v1/kernel/tx for `userId` with `auth`, as the app holding `bearer`. */
  const act = (bearer: string, userId: string, auth: string) =>
    request(built.app)
      .post("/v1/kernel/tx")
      .set("Authorization", `Bearer ${bearer}`)
      .send({ userId, chain: "localhost", to: [TARGET], value: ["0"], data: ["0x"], auth });
  /** A phone login of PHONE; with `bearer`, verifyOTP is called as that app. */
  const login = async (bearer?: string) => {
    await request(built.app).post("/functions/v1/signInWithOTP").send({ phone: PHONE }).expect(200);
    const verify = request(built.app).post("/functions/v1/verifyOTP");
    if (bearer !== undefined) verify.set("Authorization", `Bearer ${bearer}`);
    return verify.send({ phone: PHONE, token: built.sms.lastCode() });
  };
  const stored = async () => (await built.repositories).transactions.countByStatus();
  return { ...built, a, b, act, login, stored };
}

describe("API: a user's proof is usable only as its security model says", () => {
  it("app B replaying a phone token that verifyOTP bound to app A is refused (403 PROOF_WRONG_APP), nothing stored", async () => {
    const { a, b, act, login, stored, close } = await setup();
    const res = await login(a.token);
    expect(res.status).to.equal(200);
    expect(res.body.user).to.deep.equal({ id: USER, phone: PHONE });
    const token = res.body.access_token as string;
    expect(decodeJwt(token)).to.include({ sub: USER, azp: a.app.id });

    const replay = await act(b.token, USER, token);
    expect(replay.status).to.equal(403);
    expect(replay.body).to.deep.equal(
      problem(
        replay,
        403,
        "PROOF_WRONG_APP",
        "auth is a phone-login token issued to another app; sign the user in again",
      ),
    );
    expect(await stored()).to.deep.equal([]);

    const own = await act(a.token, USER, token);
    expect(own.status).to.equal(202);
    expect(await stored()).to.deep.equal([{ chain: "localhost", status: "queued", count: 1 }]);
    close();
  });

  it("verifyOTP with a bearer token that does not authenticate answers 401 and leaves the code unused", async () => {
    const { a, login, app, close, repositories, sms } = await setup();
    const forged = `${a.token.slice(0, -4)}AAAA`;
    const bad = await login(forged);
    expect(bad.status).to.equal(401);
    expect(bad.body).to.include({ code: "INVALID_TOKEN" });
    expect(bad.body.instance).to.equal("/functions/v1/verifyOTP");
    expect(bad.headers["www-authenticate"]).to.match(/^Bearer /);
    // The code was not judged: the app that sent a good token gets a bound token with it.
    const retried = await request(app)
      .post("/functions/v1/verifyOTP")
      .set("Authorization", `Bearer ${a.token}`)
      .send({ phone: PHONE, token: sms.lastCode() })
      .expect(200);
    expect(decodeJwt(retried.body.access_token).azp).to.equal(a.app.id);

    // A disabled app's token binds nothing either.
    await (await repositories).apps.setStatus(a.app.id, "disabled");
    const disabled = await request(app)
      .post("/functions/v1/verifyOTP")
      .set("Authorization", `Bearer ${a.token}`)
      .send({ phone: PHONE, token: "123456" });
    expect([disabled.status, disabled.body.code]).to.deep.equal([401, "APP_DISABLED"]);
    close();
  });

  it("takes an unbound phone token (the spec's verifyOTP without a token) from any app by default", async () => {
    const { a, b, act, login, close } = await setup();
    const res = await login();
    expect(res.status).to.equal(200);
    expect(decodeJwt(res.body.access_token)).to.not.have.property("azp");
    expect((await act(a.token, USER, res.body.access_token)).status).to.equal(202);
    expect((await act(b.token, USER, res.body.access_token)).status).to.equal(202);
    close();
  });

  it("with USER_TOKENS_REQUIRE_APP refuses an unbound phone token (401 PROOF_UNBOUND) and takes a bound one", async () => {
    const { a, act, login, setClock, close } = await setup({ proofs: { userTokensRequireApp: true } });
    const unbound = (await login()).body.access_token as string;
    const refused = await act(a.token, USER, unbound);
    expect(refused.body).to.deep.equal(
      problem(
        refused,
        401,
        "PROOF_UNBOUND",
        "auth is a phone-login token bound to no app; this deployment takes only tokens from a verifyOTP the app authenticated",
      ),
    );
    setClock(new Date(TEST_NOW.getTime() + 31_000)); // past the resend cooldown
    const bound = (await login(a.token)).body.access_token as string;
    expect((await act(a.token, USER, bound)).status).to.equal(202);
    close();
  });
});

describe("API: provider proofs from a shared key set (a local JWKS server over loopback http)", () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let sharedKey: Awaited<ReturnType<typeof generateKeyPair>>;
  const ISSUER = "https://id.shared.test/victim-project";
  const AUDIENCE = "victim-project";

  before(async () => {
    // One key set signs every project's tokens, as Firebase's does.
    sharedKey = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(sharedKey.publicKey)), kid: "shared", alg: "ES256", use: "sig" };
    jwksServer = createServer((_req, res) =>
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
  });
  after(() => jwksServer.close());

  /** A token of the shared identity service; `iat: null` leaves the claim out. */
  const token = (claims: { iss?: string; aud?: string; sub?: string; iat?: number | null; exp?: number }) => {
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: "shared" })
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud ?? AUDIENCE)
      .setSubject(claims.sub ?? "alice")
      .setExpirationTime(claims.exp ?? NOW_S + 3600);
    if (claims.iat !== null) jwt.setIssuedAt(claims.iat ?? NOW_S);
    return jwt.sign(sharedKey.privateKey);
  };

  const withProvider = async () => {
    const built = await setup();
    await (
      await built.repositories
    ).providers.register(
      built.a.app.id,
      "victim",
      { key: { kind: "jwks", url: jwksUrl }, issuer: ISSUER, audience: AUDIENCE },
      { allowInsecure: true },
    );
    return built;
  };

  it("a token minted in the attacker's own project with the victim's sub is refused (401 INVALID_PROOF)", async () => {
    const { a, act, stored, close } = await withProvider();
    const own = await token({ iss: "https://id.shared.test/attacker-project", aud: "attacker-project" });
    const res = await act(a.token, "victim:alice", own);
    expect(res.body).to.deep.equal(
      problem(res, 401, "INVALID_PROOF", "The auth token's iss claim is not this provider's registered issuer"),
    );
    const otherAudience = await act(a.token, "victim:alice", await token({ aud: "attacker-project" }));
    expect([otherAudience.status, otherAudience.body.code]).to.deep.equal([401, "INVALID_PROOF"]);
    expect(await stored()).to.deep.equal([]);
    // The victim project's own token passes.
    expect((await act(a.token, "victim:alice", await token({}))).status).to.equal(202);
    close();
  });

  it("a provider stored without issuer and audience takes no proof, the attacker's own-project token included (403)", async () => {
    const databasePath = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-proofs-")), "idwallet.sqlite");
    const { a, act, stored, close } = await setup({}, databasePath);
    // As `providers add --jwks-url` stored it before issuer and audience were required.
    const database = await openDatabase(databasePath);
    await database.db
      .insertInto("app_providers")
      .values({
        provider: "victim",
        app_id: a.app.id,
        verification: JSON.stringify({ key: { kind: "jwks", url: jwksUrl } }),
        created_at: TEST_NOW.toISOString(),
        disabled_at: null,
      })
      .execute();
    await database.close();
    const own = await token({ iss: "https://id.shared.test/attacker-project", aud: "attacker-project" });
    const res = await act(a.token, "victim:alice", own);
    expect(res.body).to.deep.equal(
      problem(
        res,
        403,
        "PROVIDER_REGISTRATION_OUTDATED",
        "The provider victim was registered without an issuer and audience (or with a plain-http key set); " +
          "its proofs are refused until the operator adds it again with both",
      ),
    );
    expect(await stored()).to.deep.equal([]);
    close();
  });

  it("a stale token (old iat, far exp) and a token without iat are refused (401)", async () => {
    const { a, act, stored, close } = await withProvider();
    const stale = await act(a.token, "victim:alice", await token({ iat: NOW_S - 3601, exp: NOW_S + 86_400 }));
    expect(stale.body).to.deep.equal(
      problem(stale, 401, "PROOF_EXPIRED", "The auth token was issued more than 3600 seconds ago; get a fresh one"),
    );
    const noIat = await act(a.token, "victim:alice", await token({ iat: null }));
    expect(noIat.body).to.deep.equal(problem(noIat, 401, "INVALID_PROOF", "The auth token has no iat claim"));
    expect(await stored()).to.deep.equal([]);
    close();
  });

  it("PROVIDER_PROOF_MAX_AGE_SECONDS sets the oldest iat taken", async () => {
    const built = buildTestApp(
      { proofs: { providerMaxAgeSeconds: 60 } },
      { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] },
    );
    const { app, token: bearer } = await built.appWithToken("app", false);
    await (
      await built.repositories
    ).providers.register(
      app.id,
      "victim",
      { key: { kind: "jwks", url: jwksUrl }, issuer: ISSUER, audience: AUDIENCE },
      { allowInsecure: true },
    );
    const act = async (iat: number) =>
      request(built.app)
        .post("/v1/kernel/tx")
        .set("Authorization", `Bearer ${bearer}`)
        .send({
          userId: "victim:alice",
          chain: "localhost",
          to: [TARGET],
          value: ["0"],
          data: ["0x"],
          auth: await token({ iat }),
        });
    expect((await act(NOW_S - 60)).status).to.equal(202);
    expect((await act(NOW_S - 61)).body.code).to.equal("PROOF_EXPIRED");
    built.close();
  });
});
