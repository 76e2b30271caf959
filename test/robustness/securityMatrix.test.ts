import { expect } from "chai";
import crypto, { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { SignJWT } from "jose";
import pino from "pino";
import request, { type Response } from "supertest";
import { hashOtpCode, otpCodeMatches } from "../../gateway/auth/otp/otpCodes";
import { hashClientSecret, verifyClientSecret } from "../../gateway/auth/clientSecret";
import { TEST_NOW } from "../helpers/testApp";
import { providerProof } from "./lib/proofs";
import {
  BAD_PROOFS,
  type Caller,
  NON_TEST_PROVIDER,
  PHONE_USER,
  PROTECTED_ROUTES,
  type Proofs,
  type ProtectedRoute,
  UNAUTHENTICATED,
} from "./lib/protectedRoutes";
import { CHAIN, type TestService, startTestService } from "./lib/testService";
import { hs256Provider } from "../helpers/providerProofs";

const PHONE_SENT = "+1 (415) 555-0123";
/** The number of PHONE_USER in every format a log might carry it in. */
const PHONE_FORMATS = ["+14155550123", "14155550123", "4155550123", "(415) 555-0123", "415-555-0123", "555-0123"];
const OTHER_PHONE_FORMATS = ["16045550199", "6045550199"];

/** Each line a logger writes, kept. */
function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
}

describe("robustness: security matrix of the protected routes, constant-time secrets, log hygiene", function () {
  this.timeout(120_000);
  const lines: string[] = [];
  /** Everything that must never reach a log line: tokens, secrets, proofs, codes. */
  const secrets = new Set<string>();
  let service: TestService;
  let proofs: Proofs;
  const apps = {} as Record<"first" | "other" | "nonTest" | "disabled", { id: string; token: string; secret: string }>;
  const bearer = {} as Record<Caller, string | undefined>;
  let cells = 0;

  before(async () => {
    service = await startTestService({
      logger: pino({ level: "trace" }, lineSink(lines)),
      settings: { resolver: { requireAuth: true } },
    });
    const { seeded, config } = service;
    const repositories = await service.repositories;
    apps.first = { id: seeded.appId, token: seeded.token, secret: seeded.clientSecret };
    for (const [key, name, testMode] of [
      ["other", "other app", true],
      ["nonTest", "production app", false],
      ["disabled", "disabled app", true],
    ] as const) {
      const made = await service.appWithToken(name, testMode);
      apps[key] = { id: made.app.id, token: made.token, secret: made.clientSecret };
    }
    await repositories.providers.register(
      apps.nonTest.id,
      NON_TEST_PROVIDER,
      hs256Provider("beta-proof-secret-of-at-least-32-chars"),
    );
    await repositories.apps.setStatus(apps.disabled.id, "disabled");

    // A real phone login: its user token is the proof of PHONE_USER.
    await request(service.app).post("/functions/v1/signInWithOTP").send({ phone: PHONE_SENT }).expect(200);
    const login = await request(service.app)
      .post("/functions/v1/verifyOTP")
      .send({ phone: "+14155550123", token: service.sms.lastCode() })
      .expect(200);
    expect(login.body.user.id).to.equal(PHONE_USER);
    proofs = {
      alice: await providerProof("alice"),
      bob: await providerProof("bob"),
      phone: login.body.access_token,
      otherPhone: (await service.userTokens.issue("tel:16045550199")).token,
      phoneBoundToOther: (await service.userTokens.issue(PHONE_USER, { appId: apps.other.id })).token,
    };

    const claims = { cid: seeded.clientId };
    const now = Math.floor(TEST_NOW.getTime() / 1000);
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(config.auth.issuer)
      .setAudience(config.auth.audience)
      .setSubject(seeded.appId)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode("another-secret-of-at-least-32-characters"));
    const [, payload] = forged.split(".");
    const unsecured = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${payload}.`;
    const [otherHeader, , otherSignature] = apps.other.token.split(".");
    Object.assign(bearer, {
      valid: apps.first.token,
      "forged: another secret": forged,
      "forged: alg none": unsecured,
      "forged: payload swapped": `${otherHeader}.${payload}.${otherSignature}`,
      "a user token as the bearer": proofs.phone,
      "a disabled app's token": apps.disabled.token,
      "another app's valid token": apps.other.token,
      "another app's token with a valid proof": apps.other.token,
      "another user's proof": apps.first.token,
      "another number's phone token": apps.first.token,
      "a phone token bound to another app": apps.first.token,
      "blank auth from a non-test app": apps.nonTest.token,
    });
    // Token exchanges with the client secret in the form and in HTTP Basic: their answers are bearer tokens too.
    const { clientId } = seeded;
    const form = await request(service.app)
      .post("/v1/auth")
      .type("form")
      .send({ client_id: clientId, client_secret: apps.first.secret })
      .expect(200);
    const basic = await request(service.app).post("/v1/auth").auth(clientId, apps.first.secret).expect(200);
    secrets.add(form.body.access_token).add(basic.body.access_token);
    for (const app of Object.values(apps)) secrets.add(app.token).add(app.secret);
    for (const value of [...Object.values(bearer), ...Object.values(proofs)]) if (value) secrets.add(value);
  });

  after(async () => {
    console.log(`security matrix: ${cells} cells answered as the README documents, nothing stored by a refused one`);
    await service?.close();
  });

  /** Sends `route` as `caller`, with `authorization` as given (undefined: no header), to its path or `target`. */
  function call(
    route: ProtectedRoute,
    caller: Caller,
    authorization: string | undefined,
    target = route.path(service.seeded),
  ): Promise<Response> {
    const req = request(service.app)[route.method](target);
    if (authorization !== undefined) req.set("Authorization", authorization);
    return route.body ? req.send(route.body(caller, proofs)) : req;
  }

  /**
   * Requests committed (wallet and Safe, all states), each app's Safes and webhook endpoints: what a refused request
   * must not change.
   */
  async function stored() {
    const repositories = await service.repositories;
    const rows = (await repositories.transactions.countByStatus()).reduce((sum, row) => sum + row.count, 0);
    const safes: Record<string, string[]> = {};
    const webhooks = {} as Record<keyof typeof apps, string[]>;
    for (const [key, app] of Object.entries(apps)) {
      safes[key] = (await repositories.safes.list(app.id, CHAIN, 200)).map((safe) => safe.address);
      webhooks[key as keyof typeof apps] = (await repositories.webhooks.listEndpoints(app.id)).map(
        (endpoint) => endpoint.id,
      );
    }
    return { rows, safes, webhooks };
  }

  /** Sends a request that must be refused with `status` and `code`, and checks that nothing was stored. */
  async function expectRefused(
    route: ProtectedRoute,
    caller: Caller,
    authorization: string | undefined,
    status: number,
    code: string,
  ) {
    const before = await stored();
    const res = await call(route, caller, authorization);
    const label = `${route.name} with ${caller} (${authorization?.slice(0, 24)}…)`;
    expect([res.status, res.body.code], label).to.deep.equal([status, code]);
    expect(res.headers["content-type"], label).to.match(/^application\/problem\+json/);
    if (status === 401) expect(res.headers["www-authenticate"], label).to.match(/^Bearer /);
    expect(await stored(), `${label}: nothing stored`).to.deep.equal(before);
    cells++;
  }

  it("a valid token (and the user's proof) is served on every protected route", async () => {
    for (const route of PROTECTED_ROUTES) {
      const target = route.removes ? await route.removes(service) : route.path(service.seeded);
      const before = await stored();
      const res = await call(route, "valid", `Bearer ${bearer.valid}`, target);
      expect(res.status, `${route.name}: ${JSON.stringify(res.body)}`).to.be.within(200, 204);
      const creates =
        route.method === "post" && /\/tx$|\/account$|\/custom$|\/payout\//.test(route.path(service.seeded));
      const after = await stored();
      expect(after.rows, route.name).to.equal(before.rows + (creates ? 1 : 0));
      if (route.name === "POST /v1/webhooks") {
        // Members, not order: the test clock stands still, and endpoints made in one millisecond list by id.
        expect(after.webhooks.first, route.name).to.have.members([...before.webhooks.first, res.body.id]);
        // A webhook signing secret is a secret like the others: never in a log line.
        secrets.add(res.body.secret);
      } else if (route.removes) {
        expect(after.webhooks.first, route.name).to.have.length(before.webhooks.first.length - 1);
      } else expect(after.webhooks, route.name).to.deep.equal(before.webhooks);
      cells++;
    }
    // A phone user's own token is the proof of their wallet.
    const phoneTx = await request(service.app)
      .post("/v1/kernel/tx")
      .set("Authorization", `Bearer ${bearer.valid}`)
      .send({
        userId: PHONE_USER,
        chain: CHAIN,
        to: [`0x${"11".repeat(20)}`],
        value: ["0"],
        data: ["0x"],
        auth: proofs.phone,
      });
    expect(phoneTx.status, JSON.stringify(phoneTx.body)).to.equal(202);
  });

  it("no token, a malformed, forged or foreign-audience token, or a disabled app's token: 401 with its code", async () => {
    const malformed = [
      `Token ${bearer.valid}`,
      `Bearer ${bearer.valid}!`,
      `Bearer ${bearer.valid} ${bearer.valid}`,
      "Bearer",
      `Basic ${Buffer.from(`x:${apps.first.secret}`).toString("base64")}`,
    ];
    secrets.add(malformed.at(-1)!.slice("Basic ".length));
    for (const route of PROTECTED_ROUTES) {
      for (const [caller, code] of UNAUTHENTICATED) {
        if (caller === "no token") await expectRefused(route, caller, undefined, 401, code);
        else if (caller === "malformed token") {
          for (const header of malformed) await expectRefused(route, caller, header, 401, code);
        } else await expectRefused(route, caller, `Bearer ${bearer[caller]}`, 401, code);
      }
    }
  });

  it("an expired token (advanced test clock): 401 TOKEN_EXPIRED, whether or not it was verified before", async () => {
    const fresh = (
      await service.tokens.issue({ id: apps.first.id, clientId: service.seeded.clientId, secretGeneration: 0 })
    ).token;
    secrets.add(fresh);
    service.setClock(new Date(TEST_NOW.getTime() + 3601 * 1000));
    try {
      for (const route of PROTECTED_ROUTES) {
        await expectRefused(route, "expired token", `Bearer ${fresh}`, 401, "TOKEN_EXPIRED");
        await expectRefused(route, "expired token seen before", `Bearer ${bearer.valid}`, 401, "TOKEN_EXPIRED");
      }
    } finally {
      service.setClock(TEST_NOW);
    }
  });

  it("another app's valid token: 404 for the first app's transactions and webhooks, 403 for its Safes and its users", async () => {
    const { safe } = service.seeded;
    for (const route of PROTECTED_ROUTES) {
      const [status, code] = route.otherApp;
      if (code !== undefined) {
        await expectRefused(
          route,
          "another app's valid token",
          `Bearer ${bearer["another app's valid token"]}`,
          status,
          code,
        );
        continue;
      }
      // Served, but as the other app: its own new Safe, its own (empty) list, a resolution.
      const before = await stored();
      const res = await call(route, "another app's valid token", `Bearer ${apps.other.token}`);
      expect(res.status, route.name).to.equal(status);
      const after = await stored();
      expect(after.safes.first, `${route.name}: the first app's Safes`).to.deep.equal(before.safes.first);
      expect(after.webhooks.first, `${route.name}: the first app's webhooks`).to.deep.equal(before.webhooks.first);
      if (route.name === "POST /v1/{chain}/account") expect(after.safes.other).to.include(res.body.address);
      if (route.name === "POST /v1/{chain}/accounts") {
        expect(res.body.accounts.map((a: { address: string }) => a.address)).to.not.include(safe);
      }
      if (route.name === "POST /v1/webhooks") expect(after.webhooks.other).to.include(res.body.id);
      if (route.name === "GET /v1/kernel/tx") expect(res.body).to.deep.equal({ items: [], nextCursor: null });
      if (route.name === "GET /v1/webhooks") {
        expect(before.webhooks.first).to.include(service.seeded.webhookId);
        expect(res.body.endpoints.map((e: { id: string }) => e.id)).to.deep.equal(before.webhooks.other);
      }
      cells++;
    }
    // A Safe that no app created here: 404 even for a valid token.
    const nobody = PROTECTED_ROUTES.find((r) => r.name === "GET /v1/{chain}/account/{address}/tx/{txUuid}")!;
    const res = await request(service.app)
      .get(`/v1/${CHAIN}/account/0x00000000000000000000000000000000000000b0/tx/${service.seeded.safeTxId}`)
      .set("Authorization", `Bearer ${bearer.valid}`);
    expect([res.status, res.body.code], nobody.name).to.deep.equal([404, "NOT_FOUND"]);
    cells++;
  });

  it("a proof that does not hold: another user's, another number's, bound to another app, another app's provider, blank outside test mode", async () => {
    for (const route of PROTECTED_ROUTES.filter((r) => r.actsForUser)) {
      for (const [caller, status, code] of BAD_PROOFS) {
        await expectRefused(route, caller, `Bearer ${bearer[caller]}`, status, code);
      }
    }
  });

  it("a valid proof cannot take its wallet over: a self-call or an ungranted delegatecall is 403 CALL_NOT_ALLOWED", async () => {
    for (const [route, accountType] of [
      ["/v1/kernel/tx", "kernel"],
      ["/v1/base/tx", "base"],
    ] as const) {
      const resolved = await request(service.app)
        .post("/v1/resolver")
        .set("Authorization", `Bearer ${bearer.valid}`)
        .send({ userIds: PHONE_USER, accountType });
      const wallet = resolved.body.users[0].accountAddress as string;
      const requests = [
        { to: [wallet.toLowerCase()], value: ["0"], data: ["0xf2fde38b"], reason: "SELF_CALL" },
        ...(route === "/v1/kernel/tx"
          ? [
              {
                to: [`0x${"11".repeat(20)}`],
                value: ["0"],
                data: ["0x"],
                delegatecall: 1,
                reason: "DELEGATECALL_NOT_GRANTED",
              },
            ]
          : []),
      ];
      for (const { reason, ...calls } of requests) {
        const before = await stored();
        const res = await request(service.app)
          .post(route)
          .set("Authorization", `Bearer ${bearer.valid}`)
          .send({ userId: PHONE_USER, chain: CHAIN, auth: proofs.phone, ...calls });
        const label = `${route} ${reason}`;
        expect([res.status, res.body.code, res.body.calls?.[0]?.reason], label).to.deep.equal([
          403,
          "CALL_NOT_ALLOWED",
          reason,
        ]);
        expect(await stored(), `${label}: nothing stored`).to.deep.equal(before);
        cells++;
      }
    }
  });

  describe("constant-time comparison of client secrets and OTP codes", () => {
    const source = (file: string) => readFileSync(path.join(__dirname, "../../gateway", file), "utf8");
    /** The text of `name`'s function body in `text`. */
    const functionBody = (text: string, name: string): string => {
      const start = text.indexOf(`function ${name}(`);
      expect(start, `function ${name}`).to.be.greaterThan(-1);
      const open = text.indexOf("{\n", start);
      const close = text.indexOf("\n}\n", open);
      return text.slice(open, close);
    };
    /** Every ===, !==, == or != in `body` is a length or undefined/null check, not a comparison of secret values. */
    const onlyHarmlessComparisons = (body: string) => {
      for (const [comparison] of body.matchAll(/\S+\s*[!=]==?\s*\S+/g)) {
        expect(comparison, comparison).to.match(/\bundefined\b|\bnull\b|\.length\b.*\.length\b/);
      }
    };
    /** Counts calls of crypto.timingSafeEqual while `run` runs (the service calls it through the module object). */
    async function timingSafeCalls(run: () => Promise<unknown>): Promise<number> {
      const original = crypto.timingSafeEqual;
      let calls = 0;
      crypto.timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
        calls++;
        return original(a, b);
      };
      try {
        await run();
      } finally {
        crypto.timingSafeEqual = original;
      }
      return calls;
    }

    it("client secrets: the stored digests are compared with crypto.timingSafeEqual", async () => {
      const body = functionBody(source("auth/clientSecret.ts"), "verifyClientSecret");
      expect(body).to.match(/timingSafeEqual\(actual, expected\)/);
      onlyHarmlessComparisons(body);

      const secret = apps.first.secret;
      const stored = hashClientSecret(secret);
      const flipped = `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
      const cases: [string, string, boolean][] = [
        ["the secret", secret, true],
        ["a wrong secret of the same length", flipped, false],
        ["a shorter secret", secret.slice(0, -1), false],
        ["a longer secret", `${secret}A`, false],
        ["an empty secret", "", false],
      ];
      for (const [name, candidate, matches] of cases) {
        if (candidate.length >= 8) secrets.add(candidate);
        let result: boolean | undefined;
        const calls = await timingSafeCalls(async () => (result = await verifyClientSecret(candidate, stored)));
        expect([result, calls], name).to.deep.equal([matches, 1]);
      }
      // Through the token endpoint: each length refused alike, and through the same comparison.
      const { clientId } = service.seeded;
      for (const candidate of [flipped, secret.slice(0, 10), `${secret}${secret}`]) {
        secrets.add(candidate);
        let res: Response | undefined;
        const calls = await timingSafeCalls(async () => {
          res = await request(service.app)
            .post("/v1/auth")
            .type("form")
            .send({ client_id: clientId, client_secret: candidate });
        });
        expect([res!.status, res!.body.error, calls], candidate).to.deep.equal([401, "invalid_client", 1]);
      }
    });

    it("OTP codes: the HMACs are compared with crypto.timingSafeEqual, a wrong code of any length fails", async () => {
      const body = functionBody(source("auth/otp/otpCodes.ts"), "otpCodeMatches");
      expect(body).to.match(/timingSafeEqual\(expected, actual\)/);
      onlyHarmlessComparisons(body);

      const key = Buffer.alloc(32, 7);
      const stored = hashOtpCode(key, "14155550123", "123456");
      const cases: [string, string, string, boolean, number][] = [
        ["the code", "123456", stored, true, 1],
        ["a wrong code", "123457", stored, false, 1],
        ["a shorter code", "12345", stored, false, 1],
        ["a longer code", "1234567", stored, false, 1],
        // A stored hash of another length (a tampered row) is refused before the comparison, which would throw.
        ["a truncated stored hash", "123456", stored.slice(0, 10), false, 0],
      ];
      for (const [name, code, hash, matches, expectedCalls] of cases) {
        let result: boolean | undefined;
        const calls = await timingSafeCalls(async () => (result = otpCodeMatches(key, "14155550123", code, hash)));
        expect([result, calls], name).to.deep.equal([matches, expectedCalls]);
      }
      // Through the auth server: a wrong code is compared and refused, the right one then signs in.
      await request(service.app).post("/functions/v1/signInWithOTP").send({ phone: PHONE_SENT }).expect(200);
      const code = service.sms.lastCode();
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
      let res: Response | undefined;
      const calls = await timingSafeCalls(async () => {
        res = await request(service.app).post("/functions/v1/verifyOTP").send({ phone: PHONE_SENT, token: wrong });
      });
      expect([res!.status, res!.body.code, calls]).to.deep.equal([401, "INVALID_OTP", 1]);
      // A wrong code makes the phone wait (OTP backoff, 1 s after the first): the right one signs in after it.
      service.setClock(new Date(TEST_NOW.getTime() + 2000));
      const ok = await request(service.app).post("/functions/v1/verifyOTP").send({ phone: PHONE_SENT, token: code });
      service.setClock(TEST_NOW);
      expect(ok.status).to.equal(200);
      secrets.add(ok.body.access_token);
    });
  });

  // A suite of its own so that it runs after every request above (mocha runs a suite's tests before its suites).
  describe("log hygiene", () => {
    it("no token, secret, proof, code or phone number in any log line (level trace)", () => {
      for (const message of service.sms.sent) secrets.add(/\b(\d{6})\b/.exec(message.text)![1]!);
      expect(lines.length, "log lines").to.be.greaterThan(20);
      const codes = [...secrets].filter((s) => /^\d{6}$/.test(s));
      const others = [...secrets].filter((s) => !/^\d{6}$/.test(s) && s.length >= 8);
      expect(codes.length, "OTP codes sent").to.be.greaterThan(0);
      for (const line of lines) {
        for (const value of others) expect(line.includes(value), `a secret in: ${line.slice(0, 200)}`).to.be.false;
        // A code as a number of its own (not a run of digits inside a timestamp or an id).
        for (const code of codes)
          expect(line, `an OTP code in a log line`).to.not.match(new RegExp(`(?<!\\d)${code}(?!\\d)`));
        for (const phone of [...PHONE_FORMATS, ...OTHER_PHONE_FORMATS]) {
          expect(line.includes(phone), `a phone number in: ${line.slice(0, 200)}`).to.be.false;
        }
      }
      console.log(
        `log hygiene: ${lines.length} log lines scanned at level trace for ${secrets.size} secrets and ` +
          `${PHONE_FORMATS.length + OTHER_PHONE_FORMATS.length} phone formats: none found`,
      );
    });
  });
});
