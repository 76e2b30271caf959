import { expect } from "chai";
import { IdwalletError, createIdwalletClient } from "@idwallet/client";
import { TEST_NOW } from "../helpers/testApp";
import { type ServedTestApp, idleChain, serveTestApp } from "../helpers/servedTestApp";

/** The service's app token lifetime (spec §5.1) and the client's margin before it (sdk/src/client/appToken.ts). */
const TOKEN_LIFETIME_S = 3600;
const REFRESH_MARGIN_S = 60;

const secondsAfterStart = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);

describe("client package: the app token (fetched once, shared, refreshed before expiry, once on TOKEN_EXPIRED)", () => {
  let service: ServedTestApp;
  beforeEach(async () => {
    service = await serveTestApp();
  });
  afterEach(() => service.close());

  const client = (options: { fetch?: typeof fetch } = {}) =>
    createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials, ...options });
  const tokenFetches = () => service.receivedAt("POST", "/v1/auth");
  const listCalls = () => service.receivedAt("GET", "/v1/webhooks");
  const bearerOf = (entry: { headers: { authorization?: string } }) => entry.headers.authorization;

  it("fetches the token once and sends it with every call", async () => {
    const idwallet = client();
    for (let i = 0; i < 3; i++) expect(await idwallet.webhooks.list()).to.deep.equal([]);
    expect(tokenFetches()).to.have.length(1);
    expect(tokenFetches()[0]!.headers["content-type"]).to.equal("application/x-www-form-urlencoded");
    const bearers = listCalls().map(bearerOf);
    expect(bearers).to.have.length(3);
    expect(new Set(bearers).size).to.equal(1);
    expect(bearers[0]).to.match(/^Bearer ey/);
  });

  it("shares one token fetch among concurrent calls", async () => {
    const idwallet = client();
    await Promise.all(Array.from({ length: 6 }, () => idwallet.webhooks.list()));
    expect(tokenFetches()).to.have.length(1);
    expect(new Set(listCalls().map(bearerOf)).size).to.equal(1);
  });

  it("fetches a new token before the old one expires, so the service never sees an expired one", async () => {
    // The client's clock runs `skew` ahead of the real one, and the service's with it.
    const realNow = Date.now;
    let skewMs = 0;
    Date.now = () => realNow() + skewMs;
    try {
      const idwallet = client();
      const advanceTo = (seconds: number) => {
        skewMs = seconds * 1000;
        service.setClock(secondsAfterStart(seconds));
      };
      await idwallet.webhooks.list();
      advanceTo(TOKEN_LIFETIME_S - REFRESH_MARGIN_S - 5);
      await idwallet.webhooks.list();
      expect(tokenFetches(), "still well within its lifetime").to.have.length(1);
      advanceTo(TOKEN_LIFETIME_S - REFRESH_MARGIN_S + 5);
      await idwallet.webhooks.list();
      expect(tokenFetches(), "within the margin before expiry").to.have.length(2);
      const bearers = listCalls().map(bearerOf);
      expect(bearers[2]).to.not.equal(bearers[0]);
      expect(listCalls().map((entry) => entry.answer?.status)).to.deep.equal([200, 200, 200]);
    } finally {
      Date.now = realNow;
    }
  });

  it("on 401 TOKEN_EXPIRED fetches a new token and sends the request again, once", async () => {
    const idwallet = client();
    await idwallet.webhooks.list();
    // The service's clock is past the token's expiry, the client's is not: the client learns it from the answer.
    service.setClock(secondsAfterStart(TOKEN_LIFETIME_S + 1));
    expect(await idwallet.webhooks.list()).to.deep.equal([]);
    expect(tokenFetches()).to.have.length(2);
    const calls = listCalls();
    expect(calls.map((entry) => entry.answer?.status)).to.deep.equal([200, 401, 200]);
    expect(bearerOf(calls[1]!)).to.equal(bearerOf(calls[0]!));
    expect(bearerOf(calls[2]!)).to.not.equal(bearerOf(calls[1]!));
  });

  it("on 401 TOKEN_EXPIRED of a route where the token is optional (resolve) also fetches a new one", async () => {
    const idwallet = client();
    await idwallet.webhooks.list();
    service.setClock(secondsAfterStart(TOKEN_LIFETIME_S + 1));
    const [user] = await idwallet.resolve(["github:alice"]);
    expect(user?.canonicalUserId).to.equal("github:alice");
    const resolves = service.receivedAt("POST", "/v1/resolver");
    expect(resolves.map((entry) => entry.answer?.status)).to.deep.equal([401, 200]);
    expect(resolves.map(bearerOf).every((bearer) => bearer?.startsWith("Bearer "))).to.equal(true);
    expect(tokenFetches()).to.have.length(2);
  });

  it("an expired user proof (PROOF_EXPIRED) is thrown at once: no new app token is fetched for nothing", async () => {
    // Its own service: localhost takes transactions, and user tokens live a minute while the app token lives an hour.
    const short = await serveTestApp(
      { otp: { userTokenTtlSeconds: 60 } },
      { chains: new Map([["localhost", idleChain()]]), txChains: ["localhost"] },
    );
    try {
      const idwallet = createIdwalletClient({ baseUrl: short.baseUrl, ...short.credentials });
      const login = await short.loginPhone(idwallet, "+14155552671");
      short.setClock(secondsAfterStart(61));
      const error = await idwallet
        .sendTransaction({
          userId: login.userId,
          chain: "localhost",
          auth: login.userToken,
          to: `0x${"de".repeat(20)}`,
        })
        .then(
          () => expect.fail("resolved"),
          (thrown: unknown) => thrown,
        );
      expect(error).to.be.instanceOf(IdwalletError);
      expect(error).to.include({ status: 401, code: "PROOF_EXPIRED" });
      expect(short.receivedAt("POST", "/v1/kernel/tx"), "sent once").to.have.length(1);
      expect(short.receivedAt("POST", "/v1/auth"), "the app token fetched once, not again").to.have.length(1);
    } finally {
      await short.close();
    }
  });

  it("a service that calls every token expired gets two attempts, then the IdwalletError, not a loop", async () => {
    // Each token is issued at the start and checked two hours later: the real service answers TOKEN_EXPIRED each time.
    const flippingClock: typeof fetch = async (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const isTokenRequest = url.endsWith("/v1/auth");
      if (isTokenRequest) service.setClock(TEST_NOW);
      const answer = await fetch(input, init);
      if (isTokenRequest) service.setClock(secondsAfterStart(2 * TOKEN_LIFETIME_S));
      return answer;
    };
    const error = await client({ fetch: flippingClock })
      .webhooks.list()
      .then(
        () => expect.fail("resolved"),
        (thrown: unknown) => thrown,
      );
    expect(error).to.be.instanceOf(IdwalletError);
    expect(error).to.include({ status: 401, code: "TOKEN_EXPIRED" });
    expect(listCalls()).to.have.length(2);
    expect(tokenFetches()).to.have.length(2);
  });
});
