import { expect } from "chai";
import { hkdfSync, createHmac } from "node:crypto";
import request, { type Response } from "supertest";
import { CapturingSms, OTP_NOW, TOKEN_SECRET, buildOtpHarness, type OtpHarness } from "./harness";

const SIGN_IN = "/functions/v1/signInWithOTP";
const VERIFY = "/functions/v1/verifyOTP";
const PHONE = "+1 (415) 555-2671";
const DIGITS = "14155552671";
const INVALID_PHONE_DETAIL = "Send a valid US or Canada phone number with the +1 prefix, e.g. +1 415 555 2671";

/** The exact RFC 9457 body the problem handler writes for `instance`. */
const problem = (res: Response, instance: string, fields: Record<string, unknown>) => ({
  type: "about:blank",
  ...fields,
  instance,
  requestId: res.headers["x-request-id"],
});

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("phone login: POST /functions/v1/signInWithOTP and /functions/v1/verifyOTP", () => {
  let h: OtpHarness;
  let sms: CapturingSms;
  beforeEach(async () => {
    sms = new CapturingSms();
    h = await buildOtpHarness({ sms });
  });
  afterEach(() => h.close());

  const signIn = (phone: string = PHONE) => request(h.app).post(SIGN_IN).send({ phone });
  const verify = (token: string, phone: string = PHONE) => request(h.app).post(VERIFY).send({ phone, token });
  const codeRows = () => h.database.db.selectFrom("otp_codes").selectAll().orderBy("created_at").execute();

  it("sends a 6-digit code by SMS and trades it for a user token naming tel:<digits>", async () => {
    const sent = await signIn().expect(200);
    expect(sent.body).to.deep.equal({ message: "Code sent", user: null, session: null, messageId: "test_1" });
    expect(sms.sent).to.have.length(1);
    expect(sms.sent[0]!.to).to.equal(`+${DIGITS}`);
    expect(sms.sent[0]!.text).to.match(/^Your idwallet code is \d{6}\. It expires in 5 minutes\. Do not share it\.$/);

    const res = await verify(sms.lastCode()).expect(200);
    expect(res.headers["cache-control"]).to.equal("no-store");
    expect(res.body).to.deep.equal({
      access_token: res.body.access_token,
      token_type: "Bearer",
      expires_in: 3600,
      user: { id: `tel:${DIGITS}`, phone: `+${DIGITS}` },
    });
    expect(await h.userTokens.verify(res.body.access_token)).to.deep.equal({ userId: `tel:${DIGITS}` });
  });

  it("accepts a Canadian number", async () => {
    await signIn("+16045550199").expect(200);
    const res = await verify(sms.lastCode(), "+1 604 555 0199").expect(200);
    expect(res.body.user).to.deep.equal({ id: "tel:16045550199", phone: "+16045550199" });
  });

  const badPhones: [string, string][] = [
    ["a UK number", "+44 20 7946 0958"],
    ["a number without +1", "4155552671"],
    ["a number without +", "14155552671"],
    ["a +1 number that is not valid (area code 555)", "+1 555 123 4567"],
    ["a +1 number outside the US and Canada (Puerto Rico)", "+1 787 555 1234"],
    ["a vanity number with letters", "+1-800-FLOWERS"],
    ["a number with an extension", "+1 415 555 2671 ext 5"],
    ["a user id instead of a number", "tel:14155552671"],
    ["an empty-looking number", "+1"],
  ];
  for (const [name, phone] of badPhones) {
    it(`refuses ${name} (400 INVALID_PHONE) on both routes`, async () => {
      const res = await signIn(phone).expect(400);
      expect(res.headers["content-type"]).to.match(/^application\/problem\+json/);
      expect(res.body).to.deep.equal(
        problem(res, SIGN_IN, {
          title: "Invalid request",
          status: 400,
          code: "INVALID_PHONE",
          detail: INVALID_PHONE_DETAIL,
          errors: [{ pointer: "/phone", detail: INVALID_PHONE_DETAIL }],
        }),
      );
      const verified = await verify("123456", phone).expect(400);
      expect(verified.body.code).to.equal("INVALID_PHONE");
      expect(sms.sent).to.deep.equal([]);
    });
  }

  it("refuses a body without a phone or with a token that is not 6 digits (400 INVALID_REQUEST)", async () => {
    const noPhone = await request(h.app).post(SIGN_IN).send({}).expect(400);
    expect(noPhone.body).to.include({ code: "INVALID_REQUEST", status: 400 });
    expect(noPhone.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/phone"]);
    for (const token of ["12345", "1234567", "abcdef", 123456]) {
      const res = await request(h.app).post(VERIFY).send({ phone: PHONE, token }).expect(400);
      expect(res.body.code).to.equal("INVALID_REQUEST");
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(["/token"]);
    }
  });

  it("refuses a form-encoded body (415)", async () => {
    const res = await request(h.app).post(SIGN_IN).type("form").send({ phone: PHONE }).expect(415);
    expect(res.body).to.include({ code: "UNSUPPORTED_MEDIA_TYPE", status: 415 });
  });

  it("stores the code only as an HMAC keyed from the token secret (HKDF, info 'idwallet otp')", async () => {
    await signIn().expect(200);
    const code = sms.lastCode();
    const rows = await codeRows();
    expect(rows).to.have.length(1);
    const row = rows[0]!;
    expect(JSON.stringify(row)).to.not.include(code);
    const key = Buffer.from(hkdfSync("sha256", TOKEN_SECRET, Buffer.alloc(0), "idwallet otp", 32));
    expect(row).to.deep.equal({
      id: row.id,
      phone: DIGITS,
      code_hash: createHmac("sha256", key).update(`${DIGITS}:${code}`).digest("hex"),
      created_at: OTP_NOW,
      expires_at: "2026-11-22T12:05:00.000Z",
      attempts: 0,
      last_failed_at: null,
      used: 0,
      seq: 1,
    });
  });

  it("keys the HMAC with OTP_HMAC_SECRET when it is set", async () => {
    const secret = "a-separate-otp-hmac-secret-of-32-characters";
    const other = await buildOtpHarness({ sms, otp: { hmacSecret: secret } });
    try {
      await request(other.app).post(SIGN_IN).send({ phone: PHONE }).expect(200);
      const row = await other.database.db.selectFrom("otp_codes").selectAll().executeTakeFirstOrThrow();
      expect(row.code_hash).to.equal(createHmac("sha256", secret).update(`${DIGITS}:${sms.lastCode()}`).digest("hex"));
      await request(other.app).post(VERIFY).send({ phone: PHONE, token: sms.lastCode() }).expect(200);
    } finally {
      await other.close();
    }
  });

  describe("limits", () => {
    it("refuses a new code within the resend cooldown (429 OTP_COOLDOWN with Retry-After)", async () => {
      await signIn().expect(200);
      let res = await signIn().expect(429);
      expect(res.headers["retry-after"]).to.equal("30");
      expect(res.body).to.deep.equal(
        problem(res, SIGN_IN, {
          title: "Too many requests",
          status: 429,
          code: "OTP_COOLDOWN",
          detail: "A code was sent to this number 0 s ago and still works; enter it, or retry in 30 s",
          retryAfter: 30,
        }),
      );
      h.clock.advance(12_000);
      res = await signIn().expect(429);
      expect(res.headers["retry-after"]).to.equal("18");
      h.clock.advance(18_000);
      await signIn().expect(200);
      expect(sms.sent).to.have.length(2);
    });

    // Until 2026-11 a number got 5 codes an hour, then nothing for the rest of it: five requests from anyone kept
    // its owner out for ~53 minutes. Now the waits double up to the codes' lifetime, so a waiting number holds a live code.
    it("spaces a number's codes 30, 60, 120, 240, then 300 s apart (429 OTP_COOLDOWN), its newest code still working", async () => {
      const waits = [30, 60, 120, 240, 300, 300];
      for (const wait of waits) {
        await signIn().expect(200);
        h.clock.advance((wait - 1) * 1000);
        const res = await signIn().expect(429);
        expect(res.headers["retry-after"]).to.equal("1");
        expect(res.body).to.include({
          code: "OTP_COOLDOWN",
          detail: `A code was sent to this number ${wait - 1} s ago and still works; enter it, or retry in 1 s`,
        });
        h.clock.advance(1000);
      }
      // Another number is not affected.
      await signIn("+12124567890").expect(200);
      expect(sms.sent).to.have.length(waits.length + 1);
      // The newest code, 299 s old at the longest wait, logs the owner in; a used code imposes no wait.
      h.clock.advance(-1000);
      await verify(sms.sent.at(-2)!.text.match(/\d{6}/)![0]).expect(200);
      await signIn().expect(200);
    });

    it("limits codes per client address per hour (429 RATE_LIMITED with Retry-After)", async () => {
      const limited = await buildOtpHarness({ sms, otp: { perIpPerHour: 3 } });
      try {
        const phones = ["+14155552671", "+12124567890", "+16045550199", "+12015550123"];
        for (const phone of phones.slice(0, 3)) await request(limited.app).post(SIGN_IN).send({ phone }).expect(200);
        const res = await request(limited.app).post(SIGN_IN).send({ phone: phones[3] }).expect(429);
        const retryAfter = Number(res.headers["retry-after"]);
        expect(retryAfter).to.be.within(3590, 3600);
        expect(res.body).to.deep.equal(
          problem(res, SIGN_IN, {
            title: "Too many requests",
            status: 429,
            code: "RATE_LIMITED",
            detail: `Too many codes requested from this address; retry in ${retryAfter} s`,
            retryAfter,
          }),
        );
        expect(sms.sent).to.have.length(3);
      } finally {
        await limited.close();
      }
    });
  });

  describe("verification", () => {
    it("backs the phone off after each wrong code (401 INVALID_OTP, retryAfter 1, 2, 4 s) and keeps the code", async () => {
      await signIn().expect(200);
      const code = sms.lastCode();
      for (const retryAfter of [1, 2, 4]) {
        const res = await verify(wrongCode(code)).expect(401);
        expect(res.body).to.deep.equal(
          problem(res, VERIFY, {
            title: "Unauthorized",
            status: 401,
            code: "INVALID_OTP",
            detail: `The code is not correct; the next try is possible in ${retryAfter} s`,
            retryAfter,
          }),
        );
        h.clock.advance(retryAfter * 1000);
      }
      expect((await codeRows())[0]).to.include({ attempts: 3, used: 0 });
      await verify(code).expect(200);
      expect((await codeRows())[0]).to.include({ attempts: 0, last_failed_at: null, used: 1 });
    });

    it("judges only one of concurrent wrong tries; the others wait out the backoff (429 OTP_BACKOFF)", async () => {
      await signIn().expect(200);
      const code = sms.lastCode();
      const results = await Promise.all(Array.from({ length: 8 }, () => verify(wrongCode(code))));
      expect(results.filter((r) => r.body.code === "INVALID_OTP")).to.have.length(1);
      expect(results.filter((r) => r.body.code === "OTP_BACKOFF")).to.have.length(7);
      expect((await codeRows())[0]).to.include({ attempts: 1 });
    });

    it("lets only one of two concurrent tries with the right code through", async () => {
      await signIn().expect(200);
      const results = await Promise.all([verify(sms.lastCode()), verify(sms.lastCode())]);
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 401]);
    });

    it("refuses an expired code (401 OTP_EXPIRED) after 5 minutes", async () => {
      await signIn().expect(200);
      h.clock.advance(300_000);
      const res = await verify(sms.lastCode()).expect(401);
      expect(res.body).to.deep.equal(
        problem(res, VERIFY, {
          title: "Unauthorized",
          status: 401,
          code: "OTP_EXPIRED",
          detail: "The code has expired; request a new one",
        }),
      );
    });

    it("accepts the code just before it expires", async () => {
      await signIn().expect(200);
      h.clock.advance(299_999);
      await verify(sms.lastCode()).expect(200);
    });

    it("never accepts a code twice", async () => {
      await signIn().expect(200);
      await verify(sms.lastCode()).expect(200);
      const res = await verify(sms.lastCode()).expect(401);
      expect(res.body).to.deep.equal(
        problem(res, VERIFY, {
          title: "Unauthorized",
          status: 401,
          code: "INVALID_OTP",
          detail: "No valid code for this number; request a new one",
        }),
      );
    });

    it("refuses a number that has no code (401 INVALID_OTP)", async () => {
      const res = await verify("123456").expect(401);
      expect(res.body).to.include({ code: "INVALID_OTP", status: 401 });
      expect(res.body).to.not.have.property("attemptsLeft");
    });

    it("a code asked for by someone else does not void the one the user is typing; a login ends them all", async () => {
      await signIn().expect(200);
      const mine = sms.lastCode();
      // An attacker asks for fresh codes for the same number, as often as the limits allow (waits of 30, 60, 120 s).
      for (const wait of [30, 60, 120]) {
        h.clock.advance(wait * 1000);
        await signIn().expect(200);
      }
      expect((await codeRows()).map((row) => row.used)).to.deep.equal([0, 0, 0, 0]);
      const login = await verify(mine).expect(200);
      expect(login.body.user).to.include({ id: "tel:14155552671" });
      expect((await codeRows()).map((row) => row.used)).to.deep.equal([1, 1, 1, 1]);
      // The newest code, unused until now, cannot log in a second time.
      await verify(sms.lastCode()).expect(401);
    });

    it("a code sent earlier stops working when it expires, however many came after", async () => {
      await signIn().expect(200);
      const first = sms.lastCode();
      h.clock.advance(240_000);
      await signIn().expect(200);
      h.clock.advance(60_000);
      // 300 s after the first code: it is dead; the second lives on.
      const late = await verify(first).expect(401);
      expect(late.body.code).to.equal("INVALID_OTP");
      h.clock.advance(1_000);
      await verify(sms.lastCode()).expect(200);
    });
  });

  it("removes rows older than a day when it stores a new code", async () => {
    await signIn().expect(200);
    h.clock.advance(24 * 3_600_000 + 1);
    await signIn("+12124567890").expect(200);
    expect((await codeRows()).map((row) => row.phone)).to.deep.equal(["12124567890"]);
  });
});
