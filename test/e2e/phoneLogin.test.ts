import { expect } from "chai";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import golden from "../vectors/addresses.json";
import { createUserTokens } from "../../gateway/auth/userTokens";
import { loadConfig } from "../../gateway/config/load";
import { startServer } from "../../gateway/server";
import { postJson } from "../helpers/http";
import { databaseSettings, serviceDatabase } from "../helpers/testDatabase";

describe("Phone login on the auth server's own port (e2e: real HTTP, its database, SMS outbox file)", () => {
  it("sends a code to the outbox and exchanges it for a user token naming tel:<digits>", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-otp-"));
    const secret = "a-token-secret-of-at-least-32-characters";
    const config = loadConfig(
      {},
      {
        port: 0,
        testDeployment: true,
        dataDir,
        ...databaseSettings(await serviceDatabase(dataDir)),
        authServer: { port: 0 },
        auth: { tokenSecret: secret },
        contracts: { kernelFactory: golden.kernelFactory, baseFactory: golden.baseFactory },
      },
    );
    const server = await startServer(config, { logger: pino({ level: "silent" }) });
    try {
      expect(server.authUrl).to.be.a("string").and.not.equal(server.url);
      const sent = await postJson(`${server.authUrl}/functions/v1/signInWithOTP`, { phone: "+1 (415) 555-2671" });
      expect(sent.status).to.equal(200);
      expect(sent.body).to.include({ user: null, session: null });

      const outbox = readFileSync(path.join(dataDir, "sms-outbox.jsonl"), "utf8").trim().split("\n");
      const message = JSON.parse(outbox.at(-1)!) as { to: string; text: string; messageId: string };
      expect(message.to).to.equal("+14155552671");
      expect(message.messageId).to.equal(sent.body.messageId);
      const code = /\b(\d{6})\b/.exec(message.text)![1];

      const verified = await postJson(`${server.authUrl}/functions/v1/verifyOTP`, {
        phone: "+14155552671",
        token: code,
      });
      expect(verified.status).to.equal(200);
      expect(verified.body.user).to.deep.equal({ id: "tel:14155552671", phone: "+14155552671" });
      const userTokens = createUserTokens({
        secret,
        issuer: config.auth.issuer,
        clock: () => new Date(),
        ttlSeconds: 3600,
      });
      expect(await userTokens.verify(verified.body.access_token as string)).to.deep.equal({
        userId: "tel:14155552671",
      });

      // The same routes on the main port; the used code does not work twice.
      const again = await postJson(`${server.url}/functions/v1/verifyOTP`, { phone: "+14155552671", token: code });
      expect(again.status).to.equal(401);
      expect(again.body.code).to.equal("INVALID_OTP");
    } finally {
      await server.close();
    }
  });
});
