import { expect } from "chai";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { Webhook } from "standardwebhooks";
import { WebhookSettings } from "../../../gateway/config/webhookSettings";
import { deliverWebhook } from "../../../gateway/webhooks/deliverWebhook";
import type { ClaimOptions, ClaimedDelivery } from "../../../gateway/webhooks/webhookDelivery";
import type { WebhookEndpoint } from "../../../gateway/webhooks/webhookEndpoint";
import { registerEndpoint } from "../../../gateway/webhooks/webhookEndpoints";
import type { WebhooksRepository } from "../../../gateway/webhooks/webhooksRepository";
import { loadAdminSettings, withLocalStackConfig } from "../../../scripts/admin/adminSettings";
import { runAdminCli } from "../../../scripts/admin/cli";
import { EXIT, type AdminOutput } from "../../../scripts/admin/commands";
import { sendTestEvent } from "../../../scripts/admin/webhookTestCommand";
import { LOCAL_STACK_CONFIG_FILE, writeLocalStackConfig } from "../../../scripts/localStack/localStackConfig";
import { startWebhookReceiver } from "../../helpers/webhookReceiver";
import { TEST_KEYS, type TestStore, openTestStore } from "../storage/builders";

function captureOutput(): AdminOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text) };
}

describe("admin CLI: its settings are the service's (environment over CONFIG_FILE)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "admin-settings-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A CONFIG_FILE as an operator writes it: the database, the secrets key, loopback endpoints allowed. */
  const configFile = (extra: Record<string, unknown> = {}): string => {
    const file = path.join(dir, "config.json");
    const settings = {
      databasePath: path.join(dir, "from-config.sqlite"),
      secrets: { key: TEST_KEYS.current },
      webhooks: { allowLoopback: true, timeoutMs: 5000 },
      ...extra,
    };
    writeFileSync(file, JSON.stringify(settings));
    return file;
  };
  const run = async (env: Record<string, string>, ...argv: string[]) => {
    const output = captureOutput();
    const code = await runAdminCli(argv, { env, output, clock: () => new Date() });
    return { code, out: output.stdout.join("\n"), err: output.stderr.join("\n") };
  };

  it("with a CONFIG_FILE: its database, its secrets key and its webhook rules, with no variable set", async () => {
    const env = { CONFIG_FILE: configFile() };
    const created = await run(env, "apps", "create", "Demo");
    expect(created.code, created.err).to.equal(EXIT.ok);
    const appId = /id:\s+(app_[0-9a-f]+)/.exec(created.out)![1]!;
    expect(loadAdminSettings(env).database).to.equal(path.join(dir, "from-config.sqlite"));

    const hooks = await startWebhookReceiver();
    try {
      const added = await run(env, "webhooks", "add", appId, hooks.url);
      expect(added.code, added.err).to.equal(EXIT.ok);
      const id = /endpoint (ep_[0-9a-f]+)/.exec(added.out)![1]!;
      const secret = /signing secret: (whsec_\S+)/.exec(added.out)![1]!;
      const tested = await run(env, "webhooks", "test", id);
      expect(tested.code, tested.err).to.equal(EXIT.ok);
      expect(tested.out).to.include("delivered").and.include("HTTP 200");
      const [hook] = hooks.received;
      expect(new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>)).to.deep.equal(
        hook!.event,
      );
    } finally {
      await hooks.close();
    }
  });

  it("a variable wins over the file, as for the service: WEBHOOK_ALLOW_LOOPBACK=false refuses a loopback URL", async () => {
    const file = configFile();
    const created = await run({ CONFIG_FILE: file }, "apps", "create", "Demo");
    const appId = /id:\s+(app_[0-9a-f]+)/.exec(created.out)![1]!;
    const refused = await run(
      { CONFIG_FILE: file, WEBHOOK_ALLOW_LOOPBACK: "false" },
      "webhooks",
      "add",
      appId,
      "http://127.0.0.1:9/hook",
    );
    expect(refused.code).to.equal(EXIT.failed);
    expect(refused.err).to.include("loopback");
    expect(loadAdminSettings({ CONFIG_FILE: file, DATABASE_PATH: "env.sqlite" }).database).to.equal("env.sqlite");
  });

  it("a bad setting in the file is refused by its variable's name, as the service's start-up refuses it", async () => {
    const refused = await run({ CONFIG_FILE: configFile({ webhooks: { timeoutMs: 5 } }) }, "apps", "list");
    expect(refused.code).to.equal(EXIT.usage);
    expect(refused.err).to.include("WEBHOOK_TIMEOUT_MS");
    const unreadable = await run({ CONFIG_FILE: path.join(dir, "missing.json") }, "apps", "list");
    expect(unreadable.code).to.equal(EXIT.usage);
    expect(unreadable.err).to.include("CONFIG_FILE");
  });

  it("finds the local stack's file in DATA_DIR when no CONFIG_FILE is set, and never over one that is", () => {
    expect(withLocalStackConfig({ DATA_DIR: dir })).to.deep.equal({ env: { DATA_DIR: dir } });
    const written = writeLocalStackConfig(dir, { dataDir: dir, secrets: { key: TEST_KEYS.current } });
    expect(written).to.equal(path.join(dir, LOCAL_STACK_CONFIG_FILE));
    expect(withLocalStackConfig({ DATA_DIR: dir })).to.deep.equal({
      env: { DATA_DIR: dir, CONFIG_FILE: written },
      found: written,
    });
    // An operator pointing the CLI at another deployment's settings is never switched to the local stack's.
    expect(withLocalStackConfig({ DATA_DIR: dir, CONFIG_FILE: "prod.json" })).to.deep.equal({
      env: { DATA_DIR: dir, CONFIG_FILE: "prod.json" },
    });
    expect(loadAdminSettings({ CONFIG_FILE: written }).secrets.key).to.equal(TEST_KEYS.current);
  });

  it("an operator's database or secrets key in the environment: a stray local-stack file is not read underneath", () => {
    const written = writeLocalStackConfig(dir, { dataDir: dir, webhooks: { allowLoopback: true } });
    expect(withLocalStackConfig({ DATA_DIR: dir }).found).to.equal(written);
    for (const own of [
      { DATABASE_URL: "postgres://idwallet@db.example.com/idwallet" },
      { DATABASE_PATH: "/srv/idwallet/idwallet.sqlite" },
      { SECRETS_KEY: TEST_KEYS.current },
    ]) {
      expect(withLocalStackConfig({ DATA_DIR: dir, ...own })).to.deep.equal({ env: { DATA_DIR: dir, ...own } });
    }
  });
});

describe("admin CLI: webhooks test beside a running service", () => {
  const settings = WebhookSettings.parse({ timeoutMs: 1000, allowLoopback: true });
  const clock = () => new Date();

  /** The repository with every claim taken first by "the service", which then does `serve` with it (or nothing). */
  const serviceClaimsFirst = (webhooks: WebhooksRepository, serve?: (claim: ClaimedDelivery) => Promise<unknown>) =>
    new Proxy(webhooks, {
      get(target, name, receiver) {
        if (name !== "claimDue") return Reflect.get(target, name, receiver) as unknown;
        return async (options: ClaimOptions) => {
          const [claim] = await target.claimDue(options);
          if (claim !== undefined && serve !== undefined) void serve(claim);
          return [];
        };
      },
    });

  let store: TestStore;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let endpoint: WebhookEndpoint;
  beforeEach(async () => {
    store = await openTestStore();
    hooks = await startWebhookReceiver();
    const { app } = await store.repos.apps.create({ name: "Demo", testMode: true });
    ({ endpoint } = await registerEndpoint(store.repos.webhooks, settings, {
      appId: app.id,
      url: hooks.url,
      events: [],
    }));
  });
  afterEach(async () => {
    await hooks.close();
    await store.database.close();
  });

  it("the service claimed the delivery first: its attempt is reported as the service's, not a refusal then a delivery", async () => {
    const logger = pino({ level: "silent" });
    const webhooks = serviceClaimsFirst(store.repos.webhooks, (claim) =>
      deliverWebhook({ repository: store.repos.webhooks, settings, clock, logger }, claim),
    );
    const output = captureOutput();
    expect(await sendTestEvent(webhooks, settings, endpoint, output, clock)).to.equal(true);
    expect(output.stdout.join("\n")).to.match(
      /delivered to http:\/\/127\.0\.0\.1:\d+\/hooks by the running service: HTTP 200/,
    );
    expect(output.stderr).to.deep.equal([]);
    expect(hooks.received).to.have.length(1);
  });

  it("claimed by nobody in time (the endpoint busy, no service): reported queued for the service, not delivered", async function () {
    this.timeout(20_000);
    const output = captureOutput();
    expect(await sendTestEvent(serviceClaimsFirst(store.repos.webhooks), settings, endpoint, output, clock)).to.equal(
      true,
    );
    expect(output.stdout.join("\n")).to.match(/queued; the running service delivers it/);
    expect(hooks.received).to.have.length(0);
  });
});
