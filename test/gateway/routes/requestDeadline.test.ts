import { expect } from "chai";
import { TEST_PROVIDER_AUDIENCE, TEST_PROVIDER_ISSUER } from "../../helpers/providerProofs";
import { type Server, createServer } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { JsonRpcProvider } from "ethers";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import request, { type Response } from "supertest";
import type { ChainClient } from "../../../gateway/chains/clients";
import { capturingLogger } from "../../helpers/capturingLogger";
import { CapturingSms } from "../../helpers/capturingSms";
import { type Slowdown, slowdown, slowed } from "../../helpers/slowCalls";
import { TEST_NOW, buildTestApp } from "../../helpers/testApp";
import { PLACEHOLDER_SAFE_CONTRACTS } from "../../helpers/placeholderSafeContracts";

/** REQUEST_TIMEOUT_MS here; a slowed step takes SLOW_MS, well past it. */
const TIMEOUT_MS = 800;
const SLOW_MS = 2000;
const TARGET = "0x000000000000000000000000000000000000dEaD";
const SIGNER = "0x00000000000000000000000000000000000000A1";
const SAFE_SETTINGS = {
  chains: { localhost: { rpcUrl: "http://127.0.0.1:9" } },
  relayerKey: `0x${"4b".repeat(32)}`,
  safe: {
    operatorKey: `0x${"5a".repeat(32)}`,
    contracts: PLACEHOLDER_SAFE_CONTRACTS,
  },
};
const STOPPED = "request stopped at its deadline before committing";

/** A chain client that is never called: accepting a request touches no chain. */
const idleChain = (name: string, chainId: number): ChainClient => ({
  name,
  chainId,
  provider: new JsonRpcProvider("http://127.0.0.1:9", chainId, { staticNetwork: true }),
});

/** The 503 a timed-out request gets, exactly. */
const timedOut = (res: Response, instance: string) => ({
  type: "about:blank",
  title: "Request timed out",
  status: 503,
  code: "REQUEST_TIMEOUT",
  detail: `No answer within ${TIMEOUT_MS} ms; the request did not take effect and will not`,
  instance,
  requestId: res.headers["x-request-id"],
});

/** Waits until `done` holds (or 5 s pass): the slowed handler has run on to its commit point. */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000;
  while (!(await done()) && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** An app-owned provider's JWKS endpoint that answers after `delay.ms` (an identity service slow to answer). */
async function slowJwks(delay: Slowdown) {
  const key = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(key.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  let answered = 0;
  const server: Server = createServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
      answered += 1;
    }, delay.ms);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const now = Math.floor(TEST_NOW.getTime() / 1000);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`,
    proof: (sub: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setSubject(sub)
        .setIssuer(TEST_PROVIDER_ISSUER)
        .setAudience(TEST_PROVIDER_AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(key.privateKey),
    answered: () => answered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Sends the head of a request and part of its body, waits for the answer (the 408 of a body that did not arrive in
 * time), then sends the rest of the body: what the service does with a request it already answered.
 */
async function bodyAfterAnswer(port: number, path: string, body: string): Promise<{ status: number; code: string }> {
  const socket = connect(port, "127.0.0.1");
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const half = Math.floor(body.length / 2);
  let received = "";
  const answered = new Promise<{ status: number; code: string }>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8");
      const split = received.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(received);
      if (split < 0 || !length || received.length < split + 4 + Number(length[1])) return;
      const json = JSON.parse(received.slice(split + 4, split + 4 + Number(length[1]))) as { code: string };
      resolve({ status: Number(received.split(" ")[1]), code: json.code });
    });
    socket.on("error", reject);
  });
  socket.write(head + body.slice(0, half));
  const answer = await answered;
  await new Promise<void>((resolve) => socket.write(body.slice(half), () => resolve()));
  return answer;
}

describe("API: a request past its deadline (REQUEST_TIMEOUT_MS) never takes effect; one committed in time answers", () => {
  describe("wallet transactions", () => {
    const setup = async (options: { jwks?: string; create?: Slowdown } = {}) => {
      const lines: string[] = [];
      const built = buildTestApp(
        { requestTimeoutMs: TIMEOUT_MS },
        {
          chains: new Map([["localhost", idleChain("localhost", 31337)]]),
          txChains: ["localhost"],
          logger: capturingLogger(lines),
          serviceRepositories: (real) =>
            options.create ? { ...real, transactions: slowed(real.transactions, "create", options.create) } : real,
        },
      );
      const { app, token } = await built.appWithToken("acme app", true);
      const repositories = await built.repositories;
      await repositories.providers.register(
        app.id,
        "acme",
        {
          key: options.jwks ? { kind: "jwks", url: options.jwks } : { kind: "hs256", secret: "s".repeat(32) },
          issuer: TEST_PROVIDER_ISSUER,
          audience: TEST_PROVIDER_AUDIENCE,
        },
        { allowInsecure: true },
      );
      const post = (auth: string, key: string) =>
        request(built.app)
          .post("/v1/kernel/tx")
          .set({ Authorization: `Bearer ${token}`, "Idempotency-Key": key })
          .send({ userId: "acme:alice", chain: "localhost", to: [TARGET], value: ["1"], data: ["0x"], auth });
      const stored = async () =>
        (await repositories.transactions.countByStatus()).reduce((sum, row) => sum + row.count, 0);
      return { ...built, token, post, stored, lines };
    };

    it("an unlucky client whose proof is still being checked at the deadline gets 503, nothing is stored, and its retry with the same Idempotency-Key is stored once", async () => {
      const delay = slowdown(SLOW_MS);
      const jwks = await slowJwks(delay);
      const { post, stored, lines, close } = await setup({ jwks: jwks.url });
      const proof = await jwks.proof("alice");

      const first = await post(proof, "order-1");
      expect([first.status, first.body.code]).to.deep.equal([503, "REQUEST_TIMEOUT"]);
      // The identity service answers late and the handler runs on to its commit, which the deadline refuses.
      await until(async () => jwks.answered() > 0 && (lines.some((l) => l.includes(STOPPED)) || (await stored()) > 0));
      expect(await stored()).to.equal(0);
      expect(first.body).to.deep.equal(timedOut(first, "/v1/kernel/tx"));

      delay.ms = 0;
      const retry = await post(proof, "order-1");
      expect(retry.status).to.equal(202);
      expect(retry.headers["idempotent-replayed"]).to.equal(undefined);
      const again = await post(proof, "order-1");
      expect([again.status, again.headers["idempotent-replayed"], again.body.id]).to.deep.equal([
        202,
        "true",
        retry.body.id,
      ]);
      expect(await stored()).to.equal(1);
      close();
      await jwks.close();
    });

    it("a request whose commit began before the deadline answers 202 late, not 503, and is stored once", async () => {
      const create = slowdown(SLOW_MS);
      const { post, stored, app, token, close } = await setup({ create });
      const started = Date.now();
      const res = await post("", "order-2");
      expect(Date.now() - started).to.be.at.least(SLOW_MS);
      expect(res.status).to.equal(202);
      expect(res.body).to.include({ status: "queued", userId: "acme:alice", chain: "localhost" });
      expect(await stored()).to.equal(1);
      create.ms = 0;
      const status = await request(app).get(`/v1/kernel/tx/${res.body.id}`).set("Authorization", `Bearer ${token}`);
      expect([status.status, status.body.id]).to.deep.equal([200, res.body.id]);
      const retry = await post("", "order-2");
      expect([retry.status, retry.headers["idempotent-replayed"], retry.body.id]).to.deep.equal([
        202,
        "true",
        res.body.id,
      ]);
      expect(await stored()).to.equal(1);
      close();
    });
  });

  describe("Safe accounts", () => {
    it("an app whose Safe creation is still being counted at the deadline gets 503, no Safe is created, and its retry creates one", async () => {
      const lines: string[] = [];
      const counting = slowdown(SLOW_MS);
      const built = buildTestApp(
        { ...SAFE_SETTINGS, requestTimeoutMs: TIMEOUT_MS },
        {
          chains: new Map([["localhost", idleChain("localhost", 31337)]]),
          txChains: ["localhost"],
          logger: capturingLogger(lines),
          // The app's rate counter waits behind another writer of the database.
          serviceRepositories: (real) => ({ ...real, rateWindows: slowed(real.rateWindows, "hit", counting) }),
        },
      );
      const { token } = await built.appWithToken("acme app");
      const create = () =>
        request(built.app)
          .post("/v1/localhost/account")
          .set({ Authorization: `Bearer ${token}`, "Idempotency-Key": "safe-1" })
          .send({ signers: [SIGNER], saltNonce: "7" });
      const list = async () =>
        (await request(built.app).post("/v1/localhost/accounts").set("Authorization", `Bearer ${token}`).send({})).body
          .accounts as { address: string }[];

      const first = await create();
      expect([first.status, first.body.code]).to.deep.equal([503, "REQUEST_TIMEOUT"]);
      await until(
        async () => counting.ended > 0 && (lines.some((l) => l.includes(STOPPED)) || (await list()).length > 0),
      );
      expect(await list()).to.deep.equal([]);
      expect(first.body).to.deep.equal(timedOut(first, "/v1/localhost/account"));

      counting.ms = 0;
      const retry = await create();
      expect(retry.status).to.equal(202);
      expect(retry.headers["idempotent-replayed"]).to.equal(undefined);
      expect((await list()).map((safe) => safe.address)).to.deep.equal([retry.body.address]);
      built.close();
    });
  });

  describe("phone login", () => {
    const PHONE = "+14155552671";
    const setup = (options: { sms?: CapturingSms; attempt?: Slowdown } = {}) => {
      const lines: string[] = [];
      const built = buildTestApp(
        { requestTimeoutMs: TIMEOUT_MS },
        {
          logger: capturingLogger(lines),
          ...(options.sms ? { sms: options.sms } : {}),
          serviceRepositories: (real) =>
            options.attempt ? { ...real, otp: slowed(real.otp, "attempt", options.attempt) } : real,
        },
      );
      const signIn = () => request(built.app).post("/functions/v1/signInWithOTP").send({ phone: PHONE });
      const verify = (token: string) =>
        request(built.app).post("/functions/v1/verifyOTP").send({ phone: PHONE, token });
      return { ...built, lines, signIn, verify };
    };

    it("a code whose SMS provider answers after the deadline was committed: 200 Code sent, one SMS, and the code logs in", async () => {
      const sending = slowdown(SLOW_MS);
      const capturing = new CapturingSms();
      const { signIn, verify, close } = setup({ sms: slowed(capturing, "send", sending) });
      const started = Date.now();
      const sent = await signIn();
      expect(Date.now() - started).to.be.at.least(SLOW_MS);
      expect([sent.status, sent.body]).to.deep.equal([
        200,
        { message: "Code sent", user: null, session: null, messageId: "test_1" },
      ]);
      expect(capturing.sent).to.have.length(1);
      const login = await verify(capturing.lastCode());
      expect([login.status, login.body.user]).to.deep.equal([200, { id: "tel:14155552671", phone: PHONE }]);
      close();
    });

    it("a client whose body arrives after its 408 sends no SMS and stores no code", async () => {
      const { app, sms, lines, signIn, close } = setup();
      const server = createServer(app).listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      const answer = await bodyAfterAnswer(
        (server.address() as AddressInfo).port,
        "/functions/v1/signInWithOTP",
        JSON.stringify({ phone: PHONE }),
      );
      expect(answer).to.deep.equal({ status: 408, code: "INCOMPLETE_BODY" });
      await until(() => lines.some((l) => l.includes(STOPPED)) || sms.sent.length > 0);
      expect(sms.sent).to.deep.equal([]);
      // No code was stored: a new request is not held back by the resend cooldown, and its code is the one sent.
      const fresh = await signIn();
      expect([fresh.status, fresh.body.messageId]).to.deep.equal([200, "test_1"]);
      expect(sms.sent).to.have.length(1);
      server.closeAllConnections();
      server.close();
      close();
    });

    it("a login whose code check committed before the deadline answers with the token, not 503 for a code used up", async () => {
      const attempt = slowdown();
      const { signIn, verify, sms, close } = setup({ attempt });
      await signIn().expect(200);
      attempt.ms = SLOW_MS;
      const started = Date.now();
      const login = await verify(sms.lastCode());
      expect(Date.now() - started).to.be.at.least(SLOW_MS);
      expect([login.status, login.body.token_type, login.body.user]).to.deep.equal([
        200,
        "Bearer",
        { id: "tel:14155552671", phone: PHONE },
      ]);
      attempt.ms = 0;
      // The code was used up by that login: a second try with it is refused.
      const again = await verify(sms.lastCode());
      expect([again.status, again.body.code]).to.deep.equal([401, "INVALID_OTP"]);
      close();
    });
  });
});
