import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import request from "supertest";
import { HttpSmsSender, OutboxSmsSender, SmsDeliveryFailedError, createSmsSender } from "../../../../gateway/auth/sms";
import { createLogger } from "../../../../gateway/http/logging";
import { OTP_NOW, buildOtpHarness, capturingLogger } from "./harness";

const TO = "+14155552671";
const TEXT = "Your idwallet code is 042917. It expires in 5 minutes. Do not share it.";

/** A local Twilio-style API: records each request and answers with `answer`. */
interface FakeProvider {
  readonly url: string;
  readonly requests: { method?: string; path?: string; headers: IncomingMessage["headers"]; form: URLSearchParams }[];
  answer: (res: ServerResponse) => void;
  close(): Promise<void>;
}

async function startFakeProvider(): Promise<FakeProvider> {
  const provider = {
    requests: [] as FakeProvider["requests"],
    answer: (res: ServerResponse) => {
      res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ sid: "SM0123456789abcdef" }));
    },
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      provider.requests.push({
        method: req.method,
        path: req.url,
        headers: req.headers,
        form: new URLSearchParams(body),
      });
      provider.answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(provider, {
    url: `http://127.0.0.1:${port}/2010-04-01`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

const httpOptions = (url: string) => ({
  httpUrl: url,
  accountSid: "AC0123456789",
  authToken: "provider-auth-token",
  from: "+15005550006",
});

describe("SMS senders", () => {
  describe("HttpSmsSender (Twilio-style API)", () => {
    let provider: FakeProvider;
    let lines: string[];
    beforeEach(async () => {
      provider = await startFakeProvider();
      lines = [];
    });
    afterEach(() => provider.close());

    it("posts To/From/Body form-encoded with HTTP Basic auth and answers the message sid", async () => {
      const sender = new HttpSmsSender(httpOptions(`${provider.url}/`), capturingLogger(lines));
      expect(await sender.send(TO, TEXT)).to.deep.equal({ messageId: "SM0123456789abcdef" });
      expect(provider.requests).to.have.length(1);
      const [sent] = provider.requests;
      expect(sent!.method).to.equal("POST");
      expect(sent!.path).to.equal("/2010-04-01/Accounts/AC0123456789/Messages.json");
      expect(sent!.headers.authorization).to.equal(
        `Basic ${Buffer.from("AC0123456789:provider-auth-token").toString("base64")}`,
      );
      expect(sent!.headers["content-type"]).to.equal("application/x-www-form-urlencoded");
      expect(Object.fromEntries(sent!.form)).to.deep.equal({ To: TO, From: "+15005550006", Body: TEXT });
      const log = lines.join("\n");
      expect(log).to.include("SM0123456789abcdef");
      for (const secret of ["4155552671", "042917", "provider-auth-token"]) expect(log).to.not.include(secret);
    });

    const failures: [string, (res: ServerResponse) => void][] = [
      [
        "a 500",
        (res) => res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ message: TO })),
      ],
      [
        "a 400 naming the number",
        (res) =>
          res
            .writeHead(400, { "Content-Type": "application/json" })
            .end(JSON.stringify({ code: 21211, message: `The 'To' number ${TO} is not valid` })),
      ],
      ["a 2xx that is not JSON", (res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<html>ok</html>")],
      ["a 2xx without a sid", (res) => res.writeHead(201, { "Content-Type": "application/json" }).end("{}")],
    ];
    for (const [name, answer] of failures) {
      it(`fails with SMS_DELIVERY_FAILED (502) on ${name}, logging the status only`, async () => {
        provider.answer = answer;
        const sender = new HttpSmsSender(httpOptions(provider.url), capturingLogger(lines));
        const error = await sender.send(TO, TEXT).catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(SmsDeliveryFailedError);
        expect(error).to.include({ status: 502, code: "SMS_DELIVERY_FAILED" });
        expect(lines.join("\n")).to.not.include("4155552671");
      });
    }

    it("gives up after its timeout (SMS_DELIVERY_FAILED)", async () => {
      provider.answer = () => undefined; // never answers
      const sender = new HttpSmsSender({ ...httpOptions(provider.url), timeoutMs: 200 }, capturingLogger(lines));
      const started = Date.now();
      const error = await sender.send(TO, TEXT).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(SmsDeliveryFailedError);
      expect(Date.now() - started).to.be.lessThan(2000);
      expect(JSON.parse(lines.at(-1)!)).to.include({ reason: "timeout" });
    });

    it("fails with SMS_DELIVERY_FAILED when nothing listens", async () => {
      await provider.close();
      const sender = new HttpSmsSender(httpOptions(provider.url), capturingLogger(lines));
      const error = await sender.send(TO, TEXT).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(SmsDeliveryFailedError);
      provider = await startFakeProvider(); // for afterEach
    });

    it("through the API: the code's SMS is sent; when the provider fails the answer is 502, that code is dead and the one delivered before still works", async () => {
      const h = await buildOtpHarness({ sms: new HttpSmsSender(httpOptions(provider.url), capturingLogger(lines)) });
      try {
        const ok = await request(h.app).post("/functions/v1/signInWithOTP").send({ phone: TO }).expect(200);
        expect(ok.body).to.deep.equal({
          message: "Code sent",
          user: null,
          session: null,
          messageId: "SM0123456789abcdef",
        });

        h.clock.advance(30_000);
        provider.answer = (res) => res.writeHead(500).end();
        const res = await request(h.app).post("/functions/v1/signInWithOTP").send({ phone: TO }).expect(502);
        expect(res.body).to.deep.equal({
          type: "about:blank",
          title: "SMS delivery failed",
          status: 502,
          code: "SMS_DELIVERY_FAILED",
          detail: "The code could not be sent; try again later",
          instance: "/functions/v1/signInWithOTP",
          requestId: res.headers["x-request-id"],
        });
        // The provider saw the failed message's code; it must not sign anyone in. The earlier code, which did
        // reach the phone, still does.
        const [delivered, failed] = provider.requests.map((sent) => /\d{6}/.exec(sent.form.get("Body") ?? "")![0]);
        const verify = (token: string) => request(h.app).post("/functions/v1/verifyOTP").send({ phone: TO, token });
        if (failed !== delivered) {
          const refused = await verify(failed!);
          expect(refused.status).to.equal(401);
          expect(refused.body).to.include({ code: "INVALID_OTP" });
          h.clock.advance(1_000);
        }
        expect((await verify(delivered!)).status).to.equal(200);
        const rows = await h.database.db.selectFrom("otp_codes").select(["used", "attempts"]).execute();
        expect(rows).to.deep.equal([
          { used: 1, attempts: 0 },
          { used: 1, attempts: 0 },
        ]);
      } finally {
        await h.close();
      }
    });
  });

  describe("OutboxSmsSender", () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), "idwallet-sms-"));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it("another local user cannot read the outbox's codes: the file 0600 (also when made again), a directory it creates 0700", async () => {
      const file = path.join(dir, "data", "sms-outbox.jsonl");
      const previous = process.umask(0o022);
      try {
        const sender = new OutboxSmsSender(file, capturingLogger([]));
        await sender.send(TO, TEXT);
        expect(statSync(file).mode & 0o777).to.equal(0o600);
        expect(statSync(path.dirname(file)).mode & 0o777).to.equal(0o700);
        // Rotated or cleared away while the service runs: the next code creates it private again.
        rmSync(file);
        await sender.send(TO, TEXT);
        expect(statSync(file).mode & 0o777).to.equal(0o600);
      } finally {
        process.umask(previous);
      }
    });

    it("creates the directory and appends one JSON object per message; the log names neither number nor code", async () => {
      const file = path.join(dir, "nested", "sms-outbox.jsonl");
      const lines: string[] = [];
      const sender = new OutboxSmsSender(file, capturingLogger(lines), () => new Date(OTP_NOW));
      const first = await sender.send(TO, TEXT);
      const second = await sender.send("+16045550199", "second");
      expect(first.messageId).to.match(/^outbox_[0-9a-f-]{36}$/);
      const written = readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(written).to.deep.equal([
        { time: OTP_NOW, to: TO, text: TEXT, messageId: first.messageId },
        { time: OTP_NOW, to: "+16045550199", text: "second", messageId: second.messageId },
      ]);
      const log = lines.join("\n");
      expect(log).to.include(first.messageId);
      for (const secret of ["4155552671", "6045550199", "042917"]) expect(log).to.not.include(secret);
    });
  });

  describe("createSmsSender", () => {
    const logger = createLogger("silent");
    it("picks the outbox or the HTTP API from the configuration", () => {
      expect(createSmsSender({ provider: "outbox", outboxPath: "data/x.jsonl" }, logger)).to.be.instanceOf(
        OutboxSmsSender,
      );
      expect(createSmsSender({ provider: "http", ...httpOptions("http://127.0.0.1:1") }, logger)).to.be.instanceOf(
        HttpSmsSender,
      );
      expect(() => createSmsSender({ provider: "http", httpUrl: "http://127.0.0.1:1" }, logger)).to.throw(
        /SMS_ACCOUNT_SID/,
      );
    });
  });
});
