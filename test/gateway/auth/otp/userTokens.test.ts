import { expect } from "chai";
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from "jose";
import { createAppTokens } from "../../../../gateway/auth/appTokens";
import { USER_TOKEN_AUDIENCE, createUserTokens } from "../../../../gateway/auth/userTokens";
import { ApiError } from "../../../../gateway/errors/apiError";
import { manualClock } from "../../storage/builders";
import { OTP_NOW, TOKEN_SECRET } from "./harness";

const USER = "tel:14155552671";

/** The 401 code `promise` rejects with. */
async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => expect.fail("expected a rejection"),
    (caught: unknown) => caught,
  );
  expect(error).to.be.instanceOf(ApiError);
  expect((error as ApiError).status).to.equal(401);
  return (error as ApiError).code;
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("user tokens", () => {
  const clock = manualClock(OTP_NOW);
  const tokens = createUserTokens({ secret: TOKEN_SECRET, issuer: "idwallet", clock: clock.now, ttlSeconds: 3600 });
  const start = clock.now().getTime();
  afterEach(() => clock.advance(start - clock.now().getTime()));

  it("issues an HS256 JWT naming the user id, with issuer, user audience, iat, exp and jti", async () => {
    const { token, expiresIn } = await tokens.issue(USER);
    expect(expiresIn).to.equal(3600);
    expect(decodeProtectedHeader(token)).to.deep.equal({ alg: "HS256", typ: "JWT" });
    const claims = decodeJwt(token);
    const now = start / 1000;
    expect(claims).to.deep.equal({
      iss: "idwallet",
      aud: USER_TOKEN_AUDIENCE,
      sub: USER,
      jti: claims.jti,
      iat: now,
      exp: now + 3600,
    });
    expect(claims.jti).to.match(/^[0-9a-f-]{36}$/);
    expect(await tokens.verify(token)).to.deep.equal({ userId: USER });
  });

  it("binds a token to the app that asked (azp) and proves that app with the user id", async () => {
    const { token } = await tokens.issue(USER, { appId: "app_a" });
    expect(decodeJwt(token)).to.include({ sub: USER, azp: "app_a" });
    expect(await tokens.verify(token)).to.deep.equal({ userId: USER, appId: "app_a" });
    // Proved once, remembered with its app.
    expect(await tokens.verify(token)).to.deep.equal({ userId: USER, appId: "app_a" });
  });

  it("refuses a token whose azp is not an app id", async () => {
    for (const azp of [42, "", ["app_a"]]) {
      const forged = await new SignJWT({ azp })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer("idwallet")
        .setAudience(USER_TOKEN_AUDIENCE)
        .setSubject(USER)
        .setJti("x")
        .setIssuedAt(start / 1000)
        .setExpirationTime(start / 1000 + 3600)
        .sign(new TextEncoder().encode(TOKEN_SECRET));
      expect(await rejectionCode(tokens.verify(forged))).to.equal("INVALID_PROOF");
    }
  });

  it("gives every token its own id", async () => {
    const [a, b] = await Promise.all([tokens.issue(USER), tokens.issue(USER)]);
    expect(decodeJwt(a.token).jti).to.not.equal(decodeJwt(b.token).jti);
  });

  it("expires after 60 minutes (401 PROOF_EXPIRED: the user signs in again, the app token is fine)", async () => {
    const { token } = await tokens.issue(USER);
    clock.advance(3_599_000);
    expect(await tokens.verify(token)).to.deep.equal({ userId: USER });
    clock.advance(1_000);
    expect(await rejectionCode(tokens.verify(token))).to.equal("PROOF_EXPIRED");
  });

  it("refuses an unsigned token (alg: none)", async () => {
    const unsecured = new UnsecuredJWT({})
      .setIssuer("idwallet")
      .setAudience(USER_TOKEN_AUDIENCE)
      .setSubject(USER)
      .setJti("x")
      .setIssuedAt(start / 1000)
      .setExpirationTime(start / 1000 + 3600)
      .encode();
    expect(await rejectionCode(tokens.verify(unsecured))).to.equal("INVALID_PROOF");
  });

  it("refuses a token whose payload was changed", async () => {
    const { token } = await tokens.issue(USER);
    const [header, payload, signature] = token.split(".");
    const forged = b64url({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), sub: "tel:12124567890" });
    expect(await rejectionCode(tokens.verify(`${header}.${forged}.${signature}`))).to.equal("INVALID_PROOF");
    const flipped = signature!.slice(0, -2) + (signature!.endsWith("AA") ? "BA" : "AA");
    expect(await rejectionCode(tokens.verify(`${header}.${payload}.${flipped}`))).to.equal("INVALID_PROOF");
  });

  it("refuses tokens signed with another key, for another issuer, or not naming a tel: user", async () => {
    const sign = (claims: { iss?: string; sub?: string }, secret = TOKEN_SECRET) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer(claims.iss ?? "idwallet")
        .setAudience(USER_TOKEN_AUDIENCE)
        .setSubject(claims.sub ?? USER)
        .setJti("x")
        .setIssuedAt(start / 1000)
        .setExpirationTime(start / 1000 + 3600)
        .sign(new TextEncoder().encode(secret));
    expect(await tokens.verify(await sign({}))).to.deep.equal({ userId: USER });
    expect(await rejectionCode(tokens.verify(await sign({}, "another-secret-another-secret-another")))).to.equal(
      "INVALID_PROOF",
    );
    expect(await rejectionCode(tokens.verify(await sign({ iss: "someone-else" })))).to.equal("INVALID_PROOF");
    expect(await rejectionCode(tokens.verify(await sign({ sub: "github:alice" })))).to.equal("INVALID_PROOF");
    expect(await rejectionCode(tokens.verify("not-a-jwt"))).to.equal("INVALID_PROOF");
  });

  it("never takes an app token as a user proof, nor a user token as an app token", async () => {
    const appTokens = createAppTokens({
      secret: TOKEN_SECRET,
      issuer: "idwallet",
      audience: "idwallet-api",
      clock: clock.now,
    });
    const appToken = await appTokens.issue({ id: "app_1", clientId: "cid_1", secretGeneration: 0 });
    expect(await rejectionCode(tokens.verify(appToken.token))).to.equal("INVALID_PROOF");
    const userToken = await tokens.issue(USER);
    expect(await rejectionCode(appTokens.verify(userToken.token))).to.equal("INVALID_TOKEN");
  });

  it("refuses a short secret and a user id it does not issue for", async () => {
    expect(() => createUserTokens({ secret: "short", issuer: "idwallet", clock: clock.now, ttlSeconds: 60 })).to.throw(
      /32 characters/,
    );
    const error = await tokens.issue("github:alice").catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(Error);
  });
});
