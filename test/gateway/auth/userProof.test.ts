import { expect } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from "jose";
import { ApiError } from "../../../gateway/errors/apiError";
import { type UserProofDeps, checkUserProof } from "../../../gateway/auth/userProof";
import type { ProviderRegistration } from "../../../gateway/identity/providerRegistration";
import { parseUserId } from "../../../gateway/identity/userId";

const NOW = new Date("2026-11-22T12:00:00Z");
const APP_A = { appId: "app_a", testMode: false };
const APP_A_TEST = { appId: "app_a", testMode: true };
const APP_B = { appId: "app_b", testMode: true };
/** An action on the local chain, where test mode is allowed. */
const LOCAL = { chainType: "local" } as const;
const HS_SECRET = "app-a-shared-secret-of-32-characters!";
const NOW_S = Math.floor(NOW.getTime() / 1000);
/** Where app A's identity service issues its proofs, and for whom. */
const ISSUER = "https://id.acme.test";
const AUDIENCE = "idwallet-app-a";
const MAX_AGE = 3600;

/** Proof tokens by the app's identity service; `iat: null` leaves the claim out. */
const sign = (
  key: Parameters<SignJWT["sign"]>[0],
  alg: string,
  sub: string,
  extra: { exp?: number; kid?: string; iat?: number | null; iss?: string; aud?: string } = {},
) => {
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg, ...(extra.kid ? { kid: extra.kid } : {}) })
    .setIssuer(extra.iss ?? ISSUER)
    .setAudience(extra.aud ?? AUDIENCE)
    .setSubject(sub)
    .setExpirationTime(extra.exp ?? NOW_S + 600);
  if (extra.iat !== null) jwt.setIssuedAt(extra.iat ?? NOW_S);
  return jwt.sign(key);
};

/** Expects `promise` to reject with an ApiError of this status and code, and returns it. */
async function rejects(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).status, code).to.equal(status);
    expect((error as ApiError).code).to.equal(code);
    return error as ApiError;
  }
  throw new Error(`expected ${code}`);
}

describe("User proof check (auth field)", () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let deps: UserProofDeps;
  let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
  let ec: Awaited<ReturnType<typeof generateKeyPair>>;
  let jwksKey: Awaited<ReturnType<typeof generateKeyPair>>;

  before(async () => {
    rsa = await generateKeyPair("RS256");
    ec = await generateKeyPair("ES256");
    jwksKey = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(jwksKey.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwksServer = createServer((_req, res) =>
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
    const claims = { issuer: ISSUER, audience: AUDIENCE };
    const registrations: ProviderRegistration[] = [
      { provider: "acme", appId: "app_a", key: { kind: "hs256", secret: HS_SECRET }, ...claims },
      {
        provider: "acme-rsa",
        appId: "app_a",
        key: { kind: "rs256", publicKeyPem: await exportSPKI(rsa.publicKey) },
        ...claims,
      },
      {
        provider: "acme-ec",
        appId: "app_a",
        key: { kind: "es256", publicKeyPem: await exportSPKI(ec.publicKey) },
        ...claims,
      },
      { provider: "acme-jwks", appId: "app_a", key: { kind: "jwks", url: jwksUrl }, ...claims },
      { provider: "acme-old", appId: "app_a", key: { kind: "hs256", secret: HS_SECRET }, ...claims, disabled: true },
      // Registered before issuer and audience were required.
      { provider: "acme-legacy", appId: "app_a", key: { kind: "hs256", secret: HS_SECRET } },
      { provider: "acme-legacy-iss", appId: "app_a", key: { kind: "hs256", secret: HS_SECRET }, issuer: ISSUER },
      {
        provider: "acme-legacy-http",
        appId: "app_a",
        key: { kind: "jwks", url: "http://id.acme.test/jwks" },
        ...claims,
      },
    ];
    deps = {
      verifyUserToken: async (token) => {
        if (token === "phone-token-15551234567") return { userId: "tel:15551234567" };
        if (token === "phone-token-15551234567-app_a") return { userId: "tel:15551234567", appId: "app_a" };
        throw new ApiError(401, "INVALID_PROOF", "Unauthorized");
      },
      findProvider: async (p) => registrations.find((r) => r.provider === p),
      providerProofMaxAgeSeconds: MAX_AGE,
      userTokensRequireApp: false,
      clock: () => NOW,
    };
  });
  after(() => jwksServer.close());

  const hs = new TextEncoder().encode(HS_SECRET);

  it("accepts app-owned provider proofs signed with HS256, RS256, ES256 and a JWKS key", async () => {
    await checkUserProof(parseUserId("acme:alice"), await sign(hs, "HS256", "alice"), APP_A, LOCAL, deps);
    await checkUserProof(
      parseUserId("acme-rsa:alice"),
      await sign(rsa.privateKey, "RS256", "alice"),
      APP_A,
      LOCAL,
      deps,
    );
    await checkUserProof(parseUserId("acme-ec:alice"), await sign(ec.privateKey, "ES256", "alice"), APP_A, LOCAL, deps);
    const jwksToken = await sign(jwksKey.privateKey, "ES256", "alice", { kid: "k1" });
    await checkUserProof(parseUserId("acme-jwks:alice"), jwksToken, APP_A, LOCAL, deps);
  });

  it("refuses a proof for another user (403), an expired one, alg:none and a wrong key (401)", async () => {
    await rejects(
      checkUserProof(parseUserId("acme:bob"), await sign(hs, "HS256", "alice"), APP_A, LOCAL, deps),
      403,
      "PROOF_MISMATCH",
    );
    const expired = await sign(hs, "HS256", "alice", { exp: NOW_S - 1 });
    await rejects(checkUserProof(parseUserId("acme:alice"), expired, APP_A, LOCAL, deps), 401, "PROOF_EXPIRED");
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "alice", exp: 9e9 })).toString("base64url")}.`;
    await rejects(checkUserProof(parseUserId("acme:alice"), none, APP_A, LOCAL, deps), 401, "INVALID_PROOF");
    const otherKey = await sign(new TextEncoder().encode("another-secret-another-secret-0123456"), "HS256", "alice");
    await rejects(checkUserProof(parseUserId("acme:alice"), otherKey, APP_A, LOCAL, deps), 401, "INVALID_PROOF");
    // An RS256 provider does not take an HS256 token signed with its public key as the secret.
    const confused = await sign(new TextEncoder().encode(await exportSPKI(rsa.publicKey)), "HS256", "alice");
    await rejects(checkUserProof(parseUserId("acme-rsa:alice"), confused, APP_A, LOCAL, deps), 401, "INVALID_PROOF");
  });

  it("a token the shared key signed for the attacker's own project, naming the victim, is refused (401 INVALID_PROOF)", async () => {
    // One key set signs every tenant's tokens (as Firebase's does for every project): the attacker's project gets a
    // token for its own user "alice"; only iss and aud tell it from app A's.
    const ownProject = { iss: "https://id.acme.test/attacker-project", aud: "attacker-project" };
    for (const [claims, detail] of [
      [ownProject, "The auth token's iss claim is not this provider's registered issuer"],
      [{ aud: ownProject.aud }, "The auth token's aud claim is not this provider's registered audience"],
      [{ iss: ownProject.iss }, "The auth token's iss claim is not this provider's registered issuer"],
    ] as const) {
      const token = await sign(jwksKey.privateKey, "ES256", "alice", { kid: "k1", ...claims });
      const error = await rejects(
        checkUserProof(parseUserId("acme-jwks:alice"), token, APP_A, LOCAL, deps),
        401,
        "INVALID_PROOF",
      );
      expect(error.message).to.equal(detail);
    }
    // The same with a shared HS256 secret: a token without iss or aud names no tenant.
    const bare = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setIssuedAt(NOW_S)
      .setExpirationTime(NOW_S + 600)
      .sign(hs);
    await rejects(checkUserProof(parseUserId("acme:alice"), bare, APP_A, LOCAL, deps), 401, "INVALID_PROOF");
  });

  it("a stolen proof past PROVIDER_PROOF_MAX_AGE_SECONDS is refused whatever its exp (401 PROOF_EXPIRED)", async () => {
    const longLived = { exp: NOW_S + 30 * 86_400 };
    const stale = await sign(hs, "HS256", "alice", { ...longLived, iat: NOW_S - MAX_AGE - 1 });
    const error = await rejects(
      checkUserProof(parseUserId("acme:alice"), stale, APP_A, LOCAL, deps),
      401,
      "PROOF_EXPIRED",
    );
    expect(error.message).to.equal("The auth token was issued more than 3600 seconds ago; get a fresh one");
    await checkUserProof(
      parseUserId("acme:alice"),
      await sign(hs, "HS256", "alice", { ...longLived, iat: NOW_S - MAX_AGE }),
      APP_A,
      LOCAL,
      deps,
    );
  });

  it("a proof without iat, or issued in the future past the clock skew, is refused (401 INVALID_PROOF)", async () => {
    const noIat = await sign(hs, "HS256", "alice", { iat: null });
    const error = await rejects(
      checkUserProof(parseUserId("acme:alice"), noIat, APP_A, LOCAL, deps),
      401,
      "INVALID_PROOF",
    );
    expect(error.message).to.equal("The auth token has no iat claim");
    const future = await sign(hs, "HS256", "alice", { iat: NOW_S + 61, exp: NOW_S + 600 });
    await rejects(checkUserProof(parseUserId("acme:alice"), future, APP_A, LOCAL, deps), 401, "INVALID_PROOF");
    // An identity service whose clock runs up to a minute ahead is still taken.
    await checkUserProof(
      parseUserId("acme:alice"),
      await sign(hs, "HS256", "alice", { iat: NOW_S + 60 }),
      APP_A,
      LOCAL,
      deps,
    );
  });

  it("refuses every proof of a provider registered without issuer and audience, or with a plain-http key set (403)", async () => {
    for (const provider of ["acme-legacy", "acme-legacy-iss", "acme-legacy-http"]) {
      // Even a token that would have passed before: the registration cannot tell tenants apart.
      const proof = await sign(hs, "HS256", "alice");
      const error = await rejects(
        checkUserProof(parseUserId(`${provider}:alice`), proof, APP_A, LOCAL, deps),
        403,
        "PROVIDER_REGISTRATION_OUTDATED",
      );
      expect(error.message).to.match(/its proofs are refused until the operator adds it again/);
    }
    // Test mode checks no key: a blank auth on a local chain still works.
    await checkUserProof(parseUserId("acme-legacy:alice"), "", APP_A_TEST, LOCAL, deps);
  });

  it("app B replaying a phone token bound to app A is refused (403 PROOF_WRONG_APP)", async () => {
    const bound = "phone-token-15551234567-app_a";
    await checkUserProof(parseUserId("tel:15551234567"), bound, APP_A, LOCAL, deps);
    const error = await rejects(
      checkUserProof(parseUserId("tel:15551234567"), bound, APP_B, LOCAL, deps),
      403,
      "PROOF_WRONG_APP",
    );
    expect(error.message).to.equal("auth is a phone-login token issued to another app; sign the user in again");
  });

  it("takes an unbound phone token from any app by default, none with USER_TOKENS_REQUIRE_APP (401 PROOF_UNBOUND)", async () => {
    const unbound = "phone-token-15551234567";
    await checkUserProof(parseUserId("tel:15551234567"), unbound, APP_B, LOCAL, deps);
    const strict = { ...deps, userTokensRequireApp: true };
    await rejects(checkUserProof(parseUserId("tel:15551234567"), unbound, APP_A, LOCAL, strict), 401, "PROOF_UNBOUND");
    await checkUserProof(parseUserId("tel:15551234567"), "phone-token-15551234567-app_a", APP_A, LOCAL, strict);
  });

  it("refuses app B acting on app A's provider (403), even in test mode", async () => {
    await rejects(checkUserProof(parseUserId("acme:alice"), "", APP_B, LOCAL, deps), 403, "PROVIDER_NOT_OWNED");
    await rejects(
      checkUserProof(parseUserId("acme:alice"), await sign(hs, "HS256", "alice"), APP_B, LOCAL, deps),
      403,
      "PROVIDER_NOT_OWNED",
    );
  });

  it("accepts blank auth only for the owning app in test mode", async () => {
    await checkUserProof(parseUserId("acme:alice"), "", APP_A_TEST, LOCAL, deps);
    await rejects(checkUserProof(parseUserId("acme:alice"), "", APP_A, LOCAL, deps), 401, "PROOF_REQUIRED");
    await rejects(checkUserProof(parseUserId("tel:15551234567"), "", APP_A_TEST, LOCAL, deps), 401, "PROOF_REQUIRED");
  });

  it("refuses blank auth in test mode on a production chain, or for an action valid on every chain (403)", async () => {
    await checkUserProof(parseUserId("acme:alice"), "", APP_A_TEST, { chainType: "testnet" }, deps);
    for (const chainType of ["production", undefined] as const)
      await rejects(
        checkUserProof(parseUserId("acme:alice"), "", APP_A_TEST, { chainType }, deps),
        403,
        "TEST_MODE_NOT_ALLOWED",
      );
    // A real proof is what production takes.
    await checkUserProof(
      parseUserId("acme:alice"),
      await sign(hs, "HS256", "alice"),
      APP_A,
      { chainType: "production" },
      deps,
    );
  });

  it("refuses every action for a removed provider's ids, proof or blank auth (403)", async () => {
    const proof = await sign(hs, "HS256", "alice");
    await rejects(checkUserProof(parseUserId("acme-old:alice"), proof, APP_A, LOCAL, deps), 403, "PROVIDER_DISABLED");
    await rejects(checkUserProof(parseUserId("acme-old:alice"), "", APP_A_TEST, LOCAL, deps), 403, "PROVIDER_DISABLED");
  });

  it("takes the phone-login token for tel: ids, only for its own number", async () => {
    await checkUserProof(parseUserId("tel:+1 555 123 4567"), "phone-token-15551234567", APP_A, LOCAL, deps);
    await rejects(
      checkUserProof(parseUserId("tel:15559999999"), "phone-token-15551234567", APP_A, LOCAL, deps),
      403,
      "PROOF_MISMATCH",
    );
    await rejects(checkUserProof(parseUserId("tel:15551234567"), "garbage", APP_A, LOCAL, deps), 401, "INVALID_PROOF");
  });

  it("says native login is not available yet for other built-in providers, and refuses unknown providers", async () => {
    await rejects(
      checkUserProof(parseUserId("github:alice"), "x", APP_A, LOCAL, deps),
      400,
      "NATIVE_LOGIN_UNAVAILABLE",
    );
    await rejects(
      checkUserProof(parseUserId("email:a@b.com"), "", APP_A_TEST, LOCAL, deps),
      400,
      "NATIVE_LOGIN_UNAVAILABLE",
    );
    await rejects(checkUserProof(parseUserId("nobody:alice"), "", APP_A_TEST, LOCAL, deps), 400, "UNKNOWN_PROVIDER");
  });
});
