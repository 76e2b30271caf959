import { expect } from "chai";
import request from "supertest";
import { buildTestApp, TEST_NOW } from "../../../helpers/testApp";
import { ConfigError, loadConfig } from "../../../../gateway/config/load";

const PHONE = "+14155552671";
const at = (seconds: number) => new Date(TEST_NOW.getTime() + seconds * 1000);
/** A wrong code for `code` (its digits shifted by one). */
const wrong = (code: string, i: number) => String((Number(code) + 1 + (i % 999_998)) % 1_000_000).padStart(6, "0");

describe("phone login under attack (API: createApp, SQLite)", () => {
  const apps: { close(): void }[] = [];
  const build = (overrides: Record<string, unknown> = {}) => {
    const built = buildTestApp(overrides);
    apps.push(built);
    return built;
  };
  afterEach(() => apps.splice(0).forEach((a) => a.close()));

  it("a thousand wrong codes from other addresses do not keep the real user out (backoff, not lock-out)", async () => {
    const { app, sms, setClock } = build({ trustProxy: "1" });
    await request(app).post("/functions/v1/signInWithOTP").send({ phone: PHONE }).expect(200);
    const code = sms.lastCode();
    const statuses = new Map<string, number>();
    // 1000 guesses from 1000 addresses over the first 200 s of the code's 300 s life.
    for (let i = 0; i < 1000; i++) {
      setClock(at(i / 5));
      const res = await request(app)
        .post("/functions/v1/verifyOTP")
        .set("X-Forwarded-For", `203.0.113.${i % 250}, 10.${i >> 8}.0.${i & 255}`)
        .send({ phone: PHONE, token: wrong(code, i) });
      statuses.set(res.body.code, (statuses.get(res.body.code) ?? 0) + 1);
    }
    // Only a few were judged at all: the rest waited out the phone's backoff.
    expect(statuses.get("INVALID_OTP")).to.be.within(5, 12);
    expect(statuses.get("OTP_BACKOFF")).to.equal(1000 - statuses.get("INVALID_OTP")!);
    // The last judged try (at 183 s) imposed at most the 60 s cap; the code (300 s) is still alive after it.
    setClock(at(299));
    const res = await request(app).post("/functions/v1/verifyOTP").send({ phone: PHONE, token: code }).expect(200);
    expect(res.body.user).to.deep.equal({ id: "tel:14155552671", phone: PHONE });
  });

  it("an attacker who asks for the number's codes from other addresses does not void the code the user got", async () => {
    const { app, sms, setClock } = build({ trustProxy: "1" });
    const ask = (from: string) =>
      request(app).post("/functions/v1/signInWithOTP").set("X-Forwarded-For", from).send({ phone: PHONE });
    await ask("198.51.100.7").expect(200);
    const usersCode = sms.lastCode();
    // Other addresses ask as soon as the number's waits (30, 60, 120 s) allow, then too early.
    for (const second of [30, 90, 210]) {
      setClock(at(second));
      await ask(`203.0.113.${second}`).expect(200);
    }
    setClock(at(250));
    const spent = await ask("203.0.113.99").expect(429);
    expect(spent.body.code).to.equal("OTP_COOLDOWN");
    // Each of those codes went to the user's phone; the one they are typing still logs them in.
    setClock(at(260));
    const res = await request(app).post("/functions/v1/verifyOTP").send({ phone: PHONE, token: usersCode }).expect(200);
    expect(res.body.user).to.deep.equal({ id: "tel:14155552671", phone: PHONE });
  });

  it("refuses a try during the backoff without judging it (429 OTP_BACKOFF), even with the right code", async () => {
    const { app, sms, setClock } = build();
    await request(app).post("/functions/v1/signInWithOTP").send({ phone: PHONE }).expect(200);
    const code = sms.lastCode();
    for (const [second, wait] of [
      [0, 1],
      [1, 2],
      [3, 4],
    ] as const) {
      setClock(at(second));
      const res = await request(app)
        .post("/functions/v1/verifyOTP")
        .send({ phone: PHONE, token: wrong(code, second) })
        .expect(401);
      expect(res.body).to.include({ code: "INVALID_OTP", retryAfter: wait });
    }
    setClock(at(6));
    const early = await request(app).post("/functions/v1/verifyOTP").send({ phone: PHONE, token: code }).expect(429);
    expect(early.body).to.include({ code: "OTP_BACKOFF", retryAfter: 1 });
    expect(early.headers["retry-after"]).to.equal("1");
    setClock(at(7));
    await request(app).post("/functions/v1/verifyOTP").send({ phone: PHONE, token: code }).expect(200);
  });

  it("limits verify tries per client address (429 RATE_LIMITED), other addresses unaffected", async () => {
    const { app } = build({ otp: { verifyPerIpPerHour: 3 } });
    const phones = ["+14155550101", "+14155550102", "+14155550103", "+14155550104"];
    for (const phone of phones.slice(0, 3)) {
      await request(app).post("/functions/v1/verifyOTP").send({ phone, token: "123456" }).expect(401);
    }
    const limited = await request(app)
      .post("/functions/v1/verifyOTP")
      .send({ phone: phones[3], token: "123456" })
      .expect(429);
    expect(limited.body).to.include({ code: "RATE_LIMITED" });
    expect(limited.body.detail).to.match(/^Too many codes tried from this address; retry in \d+ s$/);
  });

  it("a user of an app's login form who spends its backend's address budget does not keep the app's other users out", async () => {
    const { app, sms, appWithToken } = build({ otp: { verifyPerIpPerHour: 3, verifyPerAppPerHour: 1000 } });
    const { token } = await appWithToken("binding app");
    // Every verifyOTP of the app comes from its backend's one address, with its bearer token.
    const viaApp = (phone: string, code: string) =>
      request(app).post("/functions/v1/verifyOTP").set("Authorization", `Bearer ${token}`).send({ phone, token: code });
    for (let i = 0; i < 20; i++) await viaApp(`+1415555${String(1000 + i)}`, "123456").expect(401);
    // The real user's code, sent through the same backend, still logs them in.
    await request(app).post("/functions/v1/signInWithOTP").send({ phone: PHONE }).expect(200);
    const res = await viaApp(PHONE, sms.lastCode()).expect(200);
    expect(res.body.user).to.deep.equal({ id: "tel:14155552671", phone: PHONE });
    // The app's own budget bounds it.
    const { app: limitedApp, appWithToken: limitedToken } = build({ otp: { verifyPerAppPerHour: 2 } });
    const { token: other } = await limitedToken("small budget");
    const tryOnce = () =>
      request(limitedApp)
        .post("/functions/v1/verifyOTP")
        .set("Authorization", `Bearer ${other}`)
        .send({ phone: PHONE, token: "123456" });
    await tryOnce().expect(401);
    await tryOnce().expect(401);
    const limited = await tryOnce().expect(429);
    expect(limited.body.detail).to.match(/^Too many codes tried through this app; retry in \d+ s$/);
  });

  it("counts two IPv6 addresses of one /64 as one client", async () => {
    const { app } = build({ trustProxy: "1", otp: { verifyPerIpPerHour: 1 } });
    const verify = (ip: string) =>
      request(app).post("/functions/v1/verifyOTP").set("X-Forwarded-For", ip).send({ phone: PHONE, token: "123456" });
    await verify("2001:db8:aa:bb::1").expect(401);
    expect((await verify("2001:db8:aa:bb:1234:5678:9abc:def0").expect(429)).body.code).to.equal("RATE_LIMITED");
    await verify("2001:db8:aa:bc::1").expect(401);
  });

  it("a client rotating through the /64s of its /56 cannot spend the service's SMS budget: its /48 has a limit", async () => {
    const { app } = build({ trustProxy: "1", otp: { perIpPerHour: 2, perNetworkPerHour: 5, smsPerHour: 1000 } });
    const ask = (ip: string, i: number) =>
      request(app)
        .post("/functions/v1/signInWithOTP")
        .set("X-Forwarded-For", ip)
        .send({ phone: `+1415555${String(2000 + i)}` });
    for (let i = 0; i < 5; i++) await ask(`2001:db8:7:${(0x100 + i).toString(16)}::1`, i).expect(200);
    const refused = await ask("2001:db8:7:1ff::1", 99).expect(429);
    expect(refused.body.detail).to.match(/^Too many codes requested from this network; retry in \d+ s$/);
    // Another site, and IPv4 by /24, count apart.
    await ask("2001:db8:8::1", 100).expect(200);
    await ask("198.51.100.7", 101).expect(200);
  });

  it("with TRUST_PROXY=1 gives the X-Forwarded-For client its own bucket; without it ignores the header", async () => {
    const send = (app: ReturnType<typeof build>["app"], ip: string, phone: string) =>
      request(app).post("/functions/v1/signInWithOTP").set("X-Forwarded-For", ip).send({ phone });
    const proxied = build({ trustProxy: "1", otp: { perIpPerHour: 1 } }).app;
    await send(proxied, "198.51.100.1", "+14155550101").expect(200);
    await send(proxied, "198.51.100.2", "+14155550102").expect(200);
    expect((await send(proxied, "198.51.100.1", "+14155550103").expect(429)).body.code).to.equal("RATE_LIMITED");
    const direct = build({ otp: { perIpPerHour: 1 } }).app;
    await send(direct, "198.51.100.1", "+14155550101").expect(200);
    expect((await send(direct, "198.51.100.2", "+14155550102").expect(429)).body.code).to.equal("RATE_LIMITED");
  });

  it("refuses codes once the service's hourly SMS budget is spent (429 SMS_BUDGET_EXHAUSTED)", async () => {
    const { app, sms, setClock } = build({ otp: { smsPerHour: 2, perIpPerHour: 100 } });
    setClock(at(0));
    await request(app).post("/functions/v1/signInWithOTP").send({ phone: "+14155550101" }).expect(200);
    setClock(at(600));
    await request(app).post("/functions/v1/signInWithOTP").send({ phone: "+14155550102" }).expect(200);
    const refused = await request(app).post("/functions/v1/signInWithOTP").send({ phone: "+14155550103" }).expect(429);
    expect(refused.body).to.include({ code: "SMS_BUDGET_EXHAUSTED", retryAfter: 3000 });
    expect(refused.headers["retry-after"]).to.equal("3000");
    expect(sms.sent).to.have.length(2);
    setClock(at(3601));
    await request(app).post("/functions/v1/signInWithOTP").send({ phone: "+14155550103" }).expect(200);
  });
});

describe("the outbox SMS provider outside a test deployment", () => {
  const PRODUCTION = {
    AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
    CONTRACT_KERNEL_FACTORY: "0xd5ecff5e0576a247636cf1bc15859c8badce375f",
    CONTRACT_BASE_FACTORY: "0x2d5ce07E6c524DD29c35b458Cf83C7E67a9B43C3",
    RPC_URL_ETH: "http://eth.test",
  };

  it("refuses to start, naming SMS_PROVIDER and TEST_DEPLOYMENT", () => {
    for (const env of [PRODUCTION, { ...PRODUCTION, SMS_PROVIDER: "outbox" }]) {
      expect(() => loadConfig(env))
        .to.throw(ConfigError)
        .with.property("message")
        .that.matches(/SMS_PROVIDER: the outbox provider writes login codes to a plain file; .*TEST_DEPLOYMENT=true/);
    }
  });

  it("starts on a test deployment or with the local chain", () => {
    expect(loadConfig({ ...PRODUCTION, TEST_DEPLOYMENT: "true" }).sms.provider).to.equal("outbox");
    expect(loadConfig({ ...PRODUCTION, RPC_URL_LOCALHOST: "http://127.0.0.1:8545" }).testDeployment).to.equal(false);
  });
});
