import { expect } from "chai";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import type { LocalStack } from "../../scripts/localStack/startLocalStack";
import { adminBeside } from "../helpers/adminCli";
import { startTestStack } from "../helpers/localStack";
import { startWebhookReceiver } from "../helpers/webhookReceiver";

const endpointIdIn = (text: string): string => /ep_[0-9a-f]{32}/.exec(text)?.[0] ?? "";
const secretIn = (text: string): string => /signing secret: (whsec_\S+)/.exec(text)?.[1] ?? "";

describe("Admin CLI beside a running local stack (e2e: the stack's settings, none set by hand)", function () {
  this.timeout(240_000);
  let dataDir: string;
  let stack: LocalStack;
  let appId: string;
  /** The CLI as a user runs it beside `npm start`: DATA_DIR names the stack's data, nothing else is set. */
  const admin = (...args: string[]) => adminBeside({ DATA_DIR: dataDir }, ...args);

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "idwallet-stack-"));
    stack = await startTestStack(dataDir);
    const apps = await admin("apps", "list");
    expect(apps.code, apps.err).to.equal(0);
    appId = /^(app_[0-9a-f]+)\s+demo\s/m.exec(apps.out)![1]!;
  });
  after(() => stack?.close());

  it("writes the settings it gave its service to <dataDir>/local-stack.config.json, readable by its owner only", () => {
    const file = path.join(dataDir, "local-stack.config.json");
    // A local user other than the stack's must not read the secrets key that seals webhook and provider secrets.
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const written = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
    expect(written.secrets!.key).to.equal(stack.config.secrets.key);
    expect(written.auditLogKey).to.equal(stack.config.auditLogKey);
    expect(written.webhooks!.allowLoopback).to.equal(true);
    expect(path.resolve(String(written.databasePath ?? written.databaseUrl))).to.equal(
      path.resolve(stack.config.databasePath ?? stack.config.databaseUrl!),
    );
  });

  it("adds a loopback endpoint and `webhooks test` reports it delivered, once; the receiver got the signed event", async () => {
    const hooks = await startWebhookReceiver();
    try {
      const added = await admin("webhooks", "add", appId, hooks.url);
      expect(added.code, added.err).to.equal(0);
      // Said once, on stderr, so an operator knows which settings the CLI acted under.
      expect(added.err).to.include(
        `Using the local stack's settings from ${path.join(dataDir, "local-stack.config.json")}`,
      );
      const id = endpointIdIn(added.out);
      const secret = secretIn(added.out);

      const tested = await admin("webhooks", "test", id);
      expect(tested.code, tested.err).to.equal(0);
      expect(tested.out).to.match(/Test event msg_\S+ delivered to http:\/\/127\.0\.0\.1:\d+\/hooks.*HTTP 200/);
      expect(tested.err).not.to.match(/refused|loopback|SECRETS_KEY/);

      await hooks.until((got) => got.some((hook) => hook.event.type === "webhook.test"), "the test event");
      const [hook] = hooks.received.filter((got) => got.event.type === "webhook.test");
      // Signed with the secret `webhooks add` printed: the CLI opened it with the stack's own secrets key.
      expect(new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>)).to.deep.equal(
        hook!.event,
      );
      expect(hook!.event.data).to.include({ endpointId: id });
      // One attempt, delivered: not a refusal by the CLI followed by the service's delivery.
      const deliveries = await admin("webhooks", "deliveries", id);
      const rows = deliveries.out.split("\n").filter((line) => line.includes("webhook.test"));
      expect(rows).to.have.length(1);
      expect(rows[0]).to.match(/\bdelivered\b/);
    } finally {
      await hooks.close();
    }
  });

  it("a CONFIG_FILE the operator sets wins over the stack's file: its rules refuse the loopback URL", async () => {
    // Whoever points the CLI at another deployment's settings must not act under the local stack's.
    const file = path.join(mkdtempSync(path.join(tmpdir(), "idwallet-config-")), "config.json");
    const settings = JSON.parse(readFileSync(path.join(dataDir, "local-stack.config.json"), "utf8")) as Record<
      string,
      unknown
    >;
    writeFileSync(file, JSON.stringify({ ...settings, webhooks: { allowLoopback: false } }), { mode: 0o600 });
    const refused = await adminBeside(
      { DATA_DIR: dataDir, CONFIG_FILE: file },
      "webhooks",
      "add",
      appId,
      "http://127.0.0.1:9/x",
    );
    expect(refused.code).to.equal(1);
    expect(refused.err).to.match(/loopback/);
    expect(refused.err).not.to.include("local stack's settings");
  });
});
