import { expect } from "chai";
import request from "supertest";
import { buildTestApp, TEST_NOW } from "../../../helpers/testApp";
import { ConfigError, loadConfig } from "../../../../gateway/config/load";

const SIGN_IN = "/functions/v1/signInWithOTP";
const VERIFY = "/functions/v1/verifyOTP";
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
/** A distinct valid US number per index (415 555 0000 … 9999). */
const phone = (i: number) => `+1415555${String(i % 10_000).padStart(4, "0")}`;

// Denial of phone login without credentials (design invariant 10): an outsider holding addresses, but no account,
// must not stop codes for everyone nor keep one number's owner out. Default settings: these are the limits a
// deployment runs with. The clients' addresses come through a trusted proxy (TRUST_PROXY=1, X-Forwarded-For).
describe("phone login under denial (API: createApp, SQLite, default limits)", () => {
  const apps: { close(): void }[] = [];
  const build = (overrides: Record<string, unknown> = {}) => {
    const built = buildTestApp({ trustProxy: "1", ...overrides });
    apps.push(built);
    return built;
  };
  afterEach(() => apps.splice(0).forEach((a) => a.close()));

  it("seven /48 networks spend the SMS budget: others still get codes", async () => {
    const { app, sms } = build();
    const ask = (from: string, i: number) =>
      request(app)
        .post(SIGN_IN)
        .set("X-Forwarded-For", from)
        .send({ phone: phone(i) });
    let asked = 0;
    // Each network rotates through the /64s of its /48 (a new one every request) until it is refused.
    for (let network = 0; network < 7; network++) {
      for (let i = 0; i < 1000; i++) {
        const res = await ask(`2001:db8:${(0x100 + network).toString(16)}:${i.toString(16)}::1`, asked++);
        if (res.status === 429) break;
        expect(res.status, res.text).to.equal(200);
      }
    }
    const spent = sms.sent.length;
    // Someone on another network, IPv6 and IPv4, still gets a code.
    const others = [
      await ask("2001:db8:999::1", asked++),
      await ask("198.51.100.7", asked++),
      await ask("203.0.113.50", asked++),
    ];
    expect(others.map((r) => [r.status, r.body.code])).to.deep.equal([
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    expect(sms.sent).to.have.length(spent + 3);
  });

  it("an outsider with many networks spends the open budget: networks asking for their first codes still get the reserve", async () => {
    const { app, sms } = build({
      otp: { smsPerHour: 20, smsReservedPerHour: 10, smsReservePerNetwork: 2, perNetworkPerHour: 5 },
    });
    const ask = (from: string, i: number) =>
      request(app)
        .post(SIGN_IN)
        .set("X-Forwarded-For", from)
        .send({ phone: phone(i) });
    // Two heavy networks take the 10 codes outside the reserve.
    for (let i = 0; i < 10; i++) await ask(`198.51.${100 + (i % 2)}.${i}`, i).expect(200);
    // A third network's third code would come from the reserve: refused, though its own limit allows 5.
    await ask("192.0.2.1", 20).expect(200);
    await ask("192.0.2.2", 21).expect(200);
    const refused = await ask("192.0.2.3", 22).expect(429);
    expect(refused.body.code).to.equal("SMS_BUDGET_EXHAUSTED");
    expect(refused.body.detail).to.match(/kept for networks asking for their first codes/);
    // The rest of the reserve goes to networks asking for their first codes, two each, until the budget is spent.
    for (let n = 0; n < 4; n++) {
      await ask(`203.0.${n}.1`, 30 + 2 * n).expect(200);
      await ask(`203.0.${n}.2`, 31 + 2 * n).expect(200);
    }
    expect(sms.sent).to.have.length(20);
    expect((await ask("203.0.9.1", 50).expect(429)).body.code).to.equal("SMS_BUDGET_EXHAUSTED");
  });

  it("keeps a quarter of the budget in reserve when OTP_SMS_RESERVED_PER_HOUR is unset", async () => {
    const { app } = build({ otp: { smsPerHour: 8, perNetworkPerHour: 10 } });
    const ask = (from: string, i: number) =>
      request(app)
        .post(SIGN_IN)
        .set("X-Forwarded-For", from)
        .send({ phone: phone(i) });
    for (let i = 0; i < 6; i++) await ask(`198.51.100.${i}`, i).expect(200);
    expect((await ask("198.51.100.9", 9).expect(429)).body.detail).to.match(/kept for networks asking for their first/);
    await ask("192.0.2.1", 10).expect(200);
    await ask("192.0.2.2", 11).expect(200);
    expect((await ask("203.0.113.1", 12).expect(429)).body.detail).to.match(/has sent its hourly SMS budget/);
  });

  it("an outsider requests codes for one number: its owner can still log in within 5 minutes", async () => {
    const { app, sms, setClock } = build();
    const OWNER = "+14155552671";
    let attacks = 0;
    // The outsider asks for a code for the owner's number every 10 s for an hour, each time from another address.
    const attack = () =>
      request(app)
        .post(SIGN_IN)
        .set("X-Forwarded-For", `198.${51 + (attacks % 50)}.${attacks % 250}.${(attacks++ % 200) + 1}`)
        .send({ phone: OWNER });
    for (let second = 0; second < 3600; second += 10) {
      setClock(at(second));
      const res = await attack();
      expect([200, 429], res.text).to.include(res.status);
      // Every 7 minutes the owner wants to log in: asks for a code; if refused, the newest SMS on their phone (each
      // of them reached the owner, whoever asked for it) must log them in, else the refusal must end within 5 min.
      if (second % 420 !== 10) continue;
      const own = await request(app).post(SIGN_IN).set("X-Forwarded-For", "192.0.2.77").send({ phone: OWNER });
      expect([200, 429], own.text).to.include(own.status);
      expect(sms.sent.at(-1)!.to).to.equal(OWNER);
      const login = await request(app).post(VERIFY).send({ phone: OWNER, token: sms.lastCode() });
      expect(login.status, `at ${second} s: ${login.text}`).to.equal(200);
      // A refusal says when the next code can come: within the newest code's life.
      if (own.status === 429) {
        expect(own.body.code, own.text).to.equal("OTP_COOLDOWN");
        expect(Number(own.headers["retry-after"])).to.be.at.most(300);
      }
    }
  });

  it("an outsider asking for codes for one number without pause reaches it at most 15 times an hour", async () => {
    const { app, sms, setClock } = build();
    const inHour: number[] = [0, 0];
    for (let second = 0; second < 7200; second += 10) {
      setClock(at(second));
      const before = sms.sent.length;
      await request(app)
        .post(SIGN_IN)
        .set("X-Forwarded-For", `198.${51 + ((second / 10) % 100)}.${(second / 10) % 250}.1`)
        .send({ phone: "+14155552671" });
      inHour[Math.floor(second / 3600)]! += sms.sent.length - before;
    }
    // 30, 60, 120, 240 s, then 300 s between codes: 15 in the first hour, 12 in each after.
    expect(inHour).to.deep.equal([15, 12]);
  });
});

describe("phone login's denial settings", () => {
  const PRODUCTION = {
    AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
    CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
    CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
    TEST_DEPLOYMENT: "true",
  };
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig({ ...PRODUCTION, ...env });
    } catch (error) {
      expect(error).to.be.instanceOf(ConfigError);
      return (error as Error).message;
    }
    return expect.fail("the settings were accepted");
  };

  it("refuses a number's longest wait beyond a code's life: a waiting number must hold a live code", () => {
    expect(refusal({ OTP_TTL_SECONDS: "300", OTP_RESEND_COOLDOWN_MAX_SECONDS: "301" })).to.match(
      /OTP_RESEND_COOLDOWN_MAX_SECONDS: must not exceed OTP_TTL_SECONDS/,
    );
    expect(
      loadConfig({ ...PRODUCTION, OTP_TTL_SECONDS: "600", OTP_RESEND_COOLDOWN_MAX_SECONDS: "600" }).otp,
    ).to.include({
      resendCooldownMaxSeconds: 600,
    });
  });

  it("an operator who shortens OTP_TTL_SECONDS alone still starts: the longest wait follows the code's life", () => {
    expect(loadConfig({ ...PRODUCTION, OTP_TTL_SECONDS: "120" }).otp).to.include({
      ttlSeconds: 120,
      resendCooldownMaxSeconds: 120,
    });
    expect(loadConfig({ ...PRODUCTION }).otp).to.include({ ttlSeconds: 300, resendCooldownMaxSeconds: 300 });
  });

  it("refuses a reserve as large as the budget, and the retired OTP_PER_PHONE_PER_HOUR rather than ignoring it", () => {
    expect(refusal({ OTP_SMS_PER_HOUR: "100", OTP_SMS_RESERVED_PER_HOUR: "100" })).to.match(
      /OTP_SMS_RESERVED_PER_HOUR: must be below OTP_SMS_PER_HOUR/,
    );
    expect(refusal({ OTP_PER_PHONE_PER_HOUR: "5" })).to.match(/^OTP_PER_PHONE_PER_HOUR no longer exists: /);
  });
});
