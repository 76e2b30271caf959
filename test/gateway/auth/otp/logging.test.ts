import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { OutboxSmsSender, SmsDeliveryFailedError, type SmsSender } from "../../../../gateway/auth/sms";
import { buildOtpHarness, capturingLogger } from "./harness";

describe("phone login logs (invariant 6)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "idwallet-otp-log-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("never contain the code, the phone number or the user token", async () => {
    const lines: string[] = [];
    const logger = capturingLogger(lines);
    const outboxPath = path.join(dir, "sms-outbox.jsonl");
    const outbox = new OutboxSmsSender(outboxPath, logger);
    let failNext = false;
    // The dev outbox, failing on demand so the 502 path (logged at error level) is covered too.
    const sms: SmsSender = {
      send: async (to, text) => {
        if (failNext) throw new SmsDeliveryFailedError();
        return outbox.send(to, text);
      },
    };
    const h = await buildOtpHarness({ sms, logger });
    const phone = "+1 415-555-2671";
    try {
      await request(h.app).post("/functions/v1/signInWithOTP").send({ phone }).expect(200);
      const [message] = readFileSync(outboxPath, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      const code = /\d{6}/.exec(message.text)![0];
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
      await request(h.app).post("/functions/v1/verifyOTP").send({ phone, token: wrong }).expect(401);
      h.clock.advance(1_000); // the backoff after one wrong code
      const res = await request(h.app).post("/functions/v1/verifyOTP").send({ phone, token: code }).expect(200);
      const token: string = res.body.access_token;
      h.clock.advance(30_000);
      failNext = true;
      await request(h.app).post("/functions/v1/signInWithOTP").send({ phone }).expect(502);

      const log = lines.join("\n");
      // Something was logged: each request, the outbox write and the failed delivery.
      expect(lines.filter((line) => JSON.parse(line).msg === "request completed")).to.have.length(4);
      expect(log).to.include(message.messageId);
      expect(log).to.include("SMS_DELIVERY_FAILED");
      // Whole words only: a 6-digit run inside a millisecond timestamp is not a leak.
      expect(log).to.not.match(new RegExp(`\\b(${code}|${wrong})\\b`));
      for (const secret of ["4155552671", "415-555-2671", token, token.split(".")[2]!]) {
        expect(log).to.not.include(secret);
      }
    } finally {
      await h.close();
    }
  });
});
