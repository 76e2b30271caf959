import { expect } from "chai";
import { JsonRpcProvider } from "ethers";
import request from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";

const TARGET = "0x000000000000000000000000000000000000dEaD";
const PHONE = "+14155552671";
const USER = "tel:14155552671";
const NO_ERROR_CHALLENGE = 'Bearer realm="idwallet"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="idwallet", error="invalid_token"';

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain: ChainClient = {
  name: "localhost",
  chainId: 31337,
  provider: new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true }),
};

/** A production app (not test mode) with its token, and a phone user signed in through it. */
async function setup() {
  const built = buildTestApp({}, { chains: new Map([["localhost", idleChain]]), txChains: ["localhost"] });
  const { app, token } = await built.appWithToken("acme app", false);
  await request(built.app).post("/functions/v1/signInWithOTP").send({ phone: PHONE }).expect(200);
  const login = await request(built.app)
    .post("/functions/v1/verifyOTP")
    .set("Authorization", `Bearer ${token}`)
    .send({ phone: PHONE, token: built.sms.lastCode() })
    .expect(200);
  const userToken = login.body.access_token as string;
  /** POST /v1/kernel/tx as `bearer` (none when undefined): a call to TARGET for USER with `auth`, or `over` it. */
  const send = (bearer: string | undefined, over: Record<string, unknown> = {}) => {
    const req = request(built.app).post("/v1/kernel/tx");
    if (bearer !== undefined) req.set("Authorization", bearer);
    return req.send({
      userId: USER,
      chain: "localhost",
      to: [TARGET],
      value: ["0"],
      data: ["0x"],
      auth: userToken,
      ...over,
    });
  };
  const stored = async () => (await built.repositories).transactions.countByStatus();
  return { ...built, registered: app, token, userToken, send, stored };
}

/** The problem body of `res` at /v1/kernel/tx, as the service answers it. */
const problem = (res: request.Response, status: number, title: string, code: string, detail: string) => ({
  type: "about:blank",
  title,
  status,
  code,
  detail,
  instance: "/v1/kernel/tx",
  requestId: res.headers["x-request-id"],
});
const unauthorized = (res: request.Response, code: string, detail: string) =>
  problem(res, 401, "Unauthorized", code, detail);

describe("API: errors that name the fix", () => {
  it("tokens swapped: a user token as the bearer, or the app token as auth, is told what goes where", async () => {
    const { send, token, userToken, stored, close } = await setup();
    const swappedBearer = await send(`Bearer ${userToken}`);
    expect([swappedBearer.status, swappedBearer.body]).to.deep.equal([
      401,
      unauthorized(
        swappedBearer,
        "INVALID_TOKEN",
        "This is a user token (verifyOTP's access_token): send the app token from POST /v1/auth as the bearer, " +
          "and the user token as `auth`",
      ),
    ]);
    expect(swappedBearer.headers["www-authenticate"]).to.equal(INVALID_TOKEN_CHALLENGE);
    const swappedAuth = await send(`Bearer ${token}`, { auth: token });
    expect([swappedAuth.status, swappedAuth.body]).to.deep.equal([
      401,
      unauthorized(
        swappedAuth,
        "INVALID_PROOF",
        "auth is an app token: send the user token (verifyOTP's access_token) as `auth`, and the app token as the " +
          "bearer",
      ),
    ]);
    // The bearer token was good: its challenge names no invalid_token (a client keeps its app token).
    expect(swappedAuth.headers["www-authenticate"]).to.equal(NO_ERROR_CHALLENGE);
    expect(await stored()).to.deep.equal([]);
    expect((await send(`Bearer ${token}`)).status).to.equal(202);
    close();
  });

  it("an expired phone proof is PROOF_EXPIRED (sign the user in again), not the app token's TOKEN_EXPIRED", async () => {
    const { send, registered, tokens, setClock, stored, close } = await setup();
    // The app's token is fresh (fetched 50 minutes in); the phone proof, 60 minutes old, is not.
    setClock(new Date(TEST_NOW.getTime() + 3_000_000));
    const { token: freshAppToken } = await tokens.issue(registered);
    setClock(new Date(TEST_NOW.getTime() + 3_601_000));
    const res = await send(`Bearer ${freshAppToken}`);
    expect([res.status, res.body]).to.deep.equal([
      401,
      unauthorized(
        res,
        "PROOF_EXPIRED",
        "The user token in auth has expired: sign the user in again (signInWithOTP, verifyOTP)",
      ),
    ]);
    expect(res.headers["www-authenticate"]).to.equal(NO_ERROR_CHALLENGE);
    // The app's own token, once expired, is still TOKEN_EXPIRED with invalid_token: fetch a new one.
    setClock(new Date(TEST_NOW.getTime() + 7_000_000));
    const expired = await send(`Bearer ${freshAppToken}`);
    expect([expired.status, expired.body.code]).to.deep.equal([401, "TOKEN_EXPIRED"]);
    expect(expired.headers["www-authenticate"]).to.equal(INVALID_TOKEN_CHALLENGE);
    expect(await stored()).to.deep.equal([]);
    close();
  });

  it("RFC 6750 §3.1: no token (or another scheme) gets a challenge without an error code; a bad token invalid_token", async () => {
    const { send, close } = await setup();
    const none = await send(undefined);
    expect([none.status, none.body]).to.deep.equal([
      401,
      unauthorized(none, "MISSING_TOKEN", "Send Authorization: Bearer <the app token from POST /v1/auth>"),
    ]);
    expect(none.headers["www-authenticate"]).to.equal(NO_ERROR_CHALLENGE);
    const basic = await send("Basic YTpi");
    expect([basic.status, basic.body.code]).to.deep.equal([401, "MALFORMED_TOKEN"]);
    expect(basic.body.detail).to.equal(
      "The Authorization header is not of the Bearer scheme: send Authorization: Bearer <the app token from POST " +
        "/v1/auth>",
    );
    expect(basic.headers["www-authenticate"]).to.equal(NO_ERROR_CHALLENGE);
    for (const bad of ["Bearer not-a-jwt", "Bearer two words", "Bearer"]) {
      const res = await send(bad);
      expect(res.status, bad).to.equal(401);
      expect(res.headers["www-authenticate"], bad).to.equal(INVALID_TOKEN_CHALLENGE);
    }
    close();
  });

  it("a mixed-case address with a wrong EIP-55 checksum is refused as such; all lowercase is taken", async () => {
    const { send, token, stored, close } = await setup();
    const mistyped = "0x000000000000000000000000000000000000DEaD";
    const res = await send(`Bearer ${token}`, { to: [mistyped] });
    expect([res.status, res.body]).to.deep.equal([
      400,
      {
        ...problem(res, 400, "Invalid request", "INVALID_REQUEST", "The request failed validation"),
        errors: [
          {
            pointer: "/to/0",
            detail:
              "the EIP-55 checksum of this mixed-case address is wrong: check its digits, then send it checksummed, " +
              "or in all lowercase (which carries no checksum)",
          },
        ],
      },
    ]);
    const short = await send(`Bearer ${token}`, { to: ["0x1234"] });
    expect(short.body.errors).to.deep.equal([{ pointer: "/to/0", detail: "an EVM address: 0x and 40 hex digits" }]);
    expect(await stored()).to.deep.equal([]);
    for (const spelling of [TARGET, TARGET.toLowerCase(), `0x${TARGET.slice(2).toUpperCase()}`]) {
      expect((await send(`Bearer ${token}`, { to: [spelling] })).status, spelling).to.equal(202);
    }
    close();
  });

  it("UNKNOWN_CHAIN names the short name meant (a chain id, a common name) and the chains usable here", async () => {
    const { send, token, close } = await setup();
    const usable = "Chains taking transactions here: localhost";
    const cases: [string, string][] = [
      ["ethereum", "No chain is named ethereum: did you mean eth, its ERC-3770 short name?"],
      ["hardhat", "No chain is named hardhat: did you mean localhost, its ERC-3770 short name?"],
      ["Localhost", "No chain is named Localhost: did you mean localhost, its ERC-3770 short name?"],
      ["31337", "No chain is named 31337: chain id 31337 is localhost, its ERC-3770 short name."],
      ["eip155:137", "No chain is named eip155:137: chain id 137 is matic, its ERC-3770 short name."],
      ["0x7a69", "No chain is named 0x7a69: chain id 31337 is localhost, its ERC-3770 short name."],
      ["nowhere", "No chain is named nowhere (chains go by their ERC-3770 short names)."],
    ];
    for (const [chain, hint] of cases) {
      const res = await send(`Bearer ${token}`, { chain });
      expect([res.status, res.body], chain).to.deep.equal([
        400,
        problem(res, 400, "Unknown chain", "UNKNOWN_CHAIN", `${hint} ${usable}`),
      ]);
    }
    const known = await send(`Bearer ${token}`, { chain: "eth" });
    expect([known.status, known.body]).to.deep.equal([
      400,
      problem(
        known,
        400,
        "Chain not available",
        "CHAIN_NOT_AVAILABLE",
        `eth is not served by this deployment. ${usable}`,
      ),
    ]);
    close();
  });
});
