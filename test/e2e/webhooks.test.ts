import { expect } from "chai";
import { recordTestEvent } from "../../gateway/webhooks/testEvents";
import { Wallet } from "ethers";
import { Webhook } from "standardwebhooks";
import { type TestTarget } from "../../typechain-types";
import { adminWith } from "../helpers/adminCli";
import { type ServiceChain, chainWithTarget, stopAll } from "../helpers/chainWithTarget";
import { type ServiceProcess, startServiceProcess } from "../helpers/serviceProcess";
import { serviceRequests } from "../helpers/serviceRequests";
import { TEST_SECRETS_KEY } from "../helpers/testApp";
import { withRepositories } from "../helpers/testDatabase";
import { startTestNameserver } from "../helpers/testNameserver";
import { type Answer, type ReceivedHook, startWebhookReceiver } from "../helpers/webhookReceiver";

/** The settings the service and the admin CLI share here: the secrets key, and endpoints on loopback allowed. */
const HOOK_SETTINGS = {
  SECRETS_KEY: TEST_SECRETS_KEY,
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_POLL_MS: "50",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RETRY_SECONDS: "0,0,0,0",
};

describe("Webhooks (e2e: a real receiver told of requests as they end)", function () {
  this.timeout(180_000);
  let setup: ServiceChain;
  let target: TestTarget;
  const running: ServiceProcess[] = [];
  // Receivers, and whatever else a test opens (a nameserver), closed after it.
  const receivers: { close(): Promise<unknown> }[] = [];

  const start = async (extra: Record<string, string> = {}) => {
    const service = await startServiceProcess(setup.env(setup.chain.rpcUrl, { ...HOOK_SETTINGS, ...extra }));
    running.push(service);
    return service;
  };
  const receiver = async (answers: Answer[] = []) => {
    const started = await startWebhookReceiver(answers);
    receivers.push(started);
    return started;
  };
  /** `webhooks add` as the operator runs it: the endpoint id and the secret it prints once. */
  const addEndpoint = async (url: string, ...options: string[]) => {
    const { code, out, err } = await adminWith(
      HOOK_SETTINGS,
      setup.database,
      "webhooks",
      "add",
      setup.appId,
      url,
      ...options,
    );
    expect(code, err).to.equal(0);
    return { id: out.match(/ep_[0-9a-f]{32}/)![0], secret: out.match(/whsec_[A-Za-z0-9+/=]+/)![0] };
  };
  const record = (n: number) => [
    { to: target.target as string, data: target.interface.encodeFunctionData("record", [n]) },
  ];
  const requests = () => serviceRequests(running.at(-1)!.url, setup.appToken, setup.userToken);
  /** The events received about request `id`, in the order they arrived. */
  const about = (received: readonly ReceivedHook[], id: string) =>
    received.filter((hook) => hook.event.data.id === id || hook.event.data.txUuid === id);

  beforeEach(async () => {
    ({ setup, target } = await chainWithTarget());
  });
  afterEach(() => stopAll(setup, running, receivers));

  it("a phone user's transaction: submitted then included, each signed with the printed secret; a failing call: failed with its reason", async () => {
    const hooks = await receiver();
    const endpoint = await addEndpoint(hooks.url);
    const service = await start();
    const id = await requests().submit("tel:14155550111", record(1));
    const included = await requests().final(id);
    expect(included).to.include({ status: "included", success: true });
    await hooks.until((got) => about(got, id).length === 2, "submitted and included");

    const events = about(hooks.received, id);
    expect(events.map((hook) => hook.event.type)).to.deep.equal(["transaction.submitted", "transaction.included"]);
    // Verified as a receiver does, with the standardwebhooks library and the secret `webhooks add` printed.
    const verifier = new Webhook(endpoint.secret);
    for (const hook of events) {
      expect(verifier.verify(hook.body, hook.headers as Record<string, string>)).to.deep.equal(hook.event);
    }
    expect(new Set(events.map((hook) => hook.headers["webhook-id"])).size).to.equal(2);
    // The included event carries the request's public record: the body its GET answers.
    const get = await fetch(`${service.url}/v1/kernel/tx/${id}`, {
      headers: { Authorization: `Bearer ${setup.appToken}` },
    });
    expect(events[1]!.event.data).to.deep.equal(await get.json());
    expect(events[0]!.event.data).to.include({ id, status: "submitted", userId: "tel:14155550111" });
    // Another secret does not verify it: a forger without the endpoint's secret cannot pass for the service.
    const forged = new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`);
    expect(() => forged.verify(events[1]!.body, events[1]!.headers as Record<string, string>)).to.throw();

    // A Safe custom call that reverts never reaches the chain: safe.failed, with the revert's reason.
    const authorized = { Authorization: `Bearer ${setup.appToken}`, "Content-Type": "application/json" };
    const created = (await (
      await fetch(`${service.url}/v1/localhost/account`, {
        method: "POST",
        headers: authorized,
        body: JSON.stringify({ signers: [Wallet.createRandom().address] }),
      })
    ).json()) as { address: string; txUuid: string };
    await hooks.until((got) => about(got, created.txUuid).length === 2, "the Safe's creation");
    const custom = await fetch(`${service.url}/v1/localhost/account/${created.address}/custom`, {
      method: "POST",
      headers: authorized,
      body: JSON.stringify({
        to: target.target,
        data: target.interface.encodeFunctionData("failWithMessage", ["no such order"]),
      }),
    });
    expect(custom.status).to.equal(202);
    const { txUuid } = (await custom.json()) as { txUuid: string };
    await hooks.until((got) => about(got, txUuid).some((hook) => hook.event.type === "safe.failed"), "safe.failed");
    const failed = about(hooks.received, txUuid).at(-1)!;
    expect(failed.event.data).to.deep.include({
      txUuid,
      status: "failed",
      action: "custom",
      error: { code: "EXECUTION_REVERTED", message: "no such order" },
    });
    expect(verifier.verify(failed.body, failed.headers as Record<string, string>)).to.deep.equal(failed.event);
  });

  it("a receiver answering 500 three times, then 200, gets the event on the fourth try under the same id", async () => {
    const hooks = await receiver([500, 500, 500]);
    const endpoint = await addEndpoint(hooks.url, "--events", "transaction.included");
    const service = await start();
    const id = await requests().submit("tel:14155550112", record(2));
    await hooks.until((got) => got.length === 4, "four attempts");
    const ids = hooks.received.map((hook) => hook.headers["webhook-id"]);
    expect(new Set(ids).size, "one event, tried four times").to.equal(1);
    expect(hooks.received.map((hook) => hook.event.type)).to.deep.equal(Array(4).fill("transaction.included"));
    expect(hooks.received[3]!.event.data).to.include({ id, status: "included" });
    // Nothing more is sent once it was delivered; the attempts are on record.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received).to.have.length(4);
    const { out } = await adminWith(HOOK_SETTINGS, setup.database, "webhooks", "deliveries", endpoint.id);
    expect(out.match(/http_error/g)).to.have.length(3);
    expect(out).to.match(/delivered/);
    // The metrics count the attempts by outcome, and nothing is owed any more.
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).to.include(`idwallet_webhook_deliveries_total{endpoint="${endpoint.id}",outcome="http_error"} 3`);
    expect(metrics).to.include(`idwallet_webhook_deliveries_total{endpoint="${endpoint.id}",outcome="delivered"} 1`);
    expect(metrics).to.match(/^idwallet_webhook_queue_depth 0$/m);
    expect(metrics).to.match(/^idwallet_webhook_oldest_undelivered_seconds 0$/m);
  });

  it("killed between the state change and the delivery: the event goes out after the restart, once delivered", async () => {
    const hooks = await receiver();
    await addEndpoint(hooks.url);
    // The state changes commit with their events, but nothing is delivered: then the process is killed.
    const first = await start({ WEBHOOK_WORKER: "false" });
    const id = await requests().submit("tel:14155550113", record(3));
    expect(await requests().final(id)).to.include({ status: "included" });
    await first.kill();
    expect(hooks.received).to.have.length(0);
    await start();
    await hooks.until((got) => about(got, id).length === 2, "both events after the restart");
    expect(about(hooks.received, id).map((hook) => hook.event.type)).to.deep.equal([
      "transaction.submitted",
      "transaction.included",
    ]);
  });

  it("killed in the middle of an attempt: the claim ends and the event is sent again with the same id", async () => {
    const hooks = await receiver(["hang"]);
    await addEndpoint(hooks.url, "--events", "transaction.included");
    // Its attempt would time out after 3 s: it is killed before, and its claim ends 5 s after that.
    const first = await start({ WEBHOOK_TIMEOUT_MS: "3000" });
    const id = await requests().submit("tel:14155550114", record(4));
    await hooks.until((got) => got.length === 1, "the first attempt, held open");
    await first.kill();
    await start();
    await hooks.until((got) => got.length === 2, "the attempt again after the claim ended");
    expect(hooks.received[1]!.headers["webhook-id"]).to.equal(hooks.received[0]!.headers["webhook-id"]);
    expect(hooks.received[1]!.event.data).to.include({ id, status: "included" });
  });

  it("another app's endpoints on names whose nameserver never answers: this app's events still arrive at once", async () => {
    // The service asks only the test's nameserver (WEBHOOK_DNS_SERVERS): it answers this app's name, drops the other's.
    const [honest, silent] = ["hooks.honest.localhost", "hooks.silent.localhost"];
    const dns = await startTestNameserver({ [honest]: ["127.0.0.1"], [silent]: "drop" });
    receivers.push(dns);
    const hooks = await receiver();
    const port = new URL(hooks.url).port;
    await addEndpoint(`http://${honest}:${port}/hooks`, "--events", "transaction.included");
    await start({ WEBHOOK_DNS_SERVERS: dns.server, WEBHOOK_RETRY_SECONDS: Array(20).fill(1).join(",") });
    /** How long after a request is final its event reaches this app's receiver. */
    const eventLatency = async (n: number): Promise<number> => {
      const id = await requests().submit(`tel:1415555012${n}`, record(n));
      await requests().final(id);
      const final = performance.now();
      await hooks.until((got) => about(got, id).length === 1, `the event of request ${n}`);
      return performance.now() - final;
    };
    const normal = await eventLatency(5);

    const other = await withRepositories(setup.database, (repos) => repos.apps.create({ name: "silent-dns" }));
    const { code, out, err } = await adminWith(
      HOOK_SETTINGS,
      setup.database,
      "webhooks",
      "add",
      other.app.id,
      `http://${silent}:${port}/hooks`,
    );
    expect(code, err).to.equal(0);
    const silentEndpoint = out.match(/ep_[0-9a-f]{32}/)![0];
    const body = (eventId: string, at: Date) =>
      JSON.stringify({ type: "webhook.test", timestamp: at.toISOString(), data: { eventId } });
    await withRepositories(setup.database, async (repos) => {
      for (let i = 0; i < 4; i++) await recordTestEvent(repos.webhooks, silentEndpoint, body);
    });
    await hooks.until(() => dns.queriesFor(silent).length > 0, "the silent app's look-ups");

    const underAttack = [await eventLatency(6), await eventLatency(7)];
    expect(Math.max(...underAttack), `${Math.round(normal)} ms normally`).to.be.below(Math.min(normal + 500, 1000));
    // Its attempts end and free its endpoint's share (two in flight) for the next, reaching nothing: more look-ups (A
    // and AAAA, each sent twice) than two attempts make.
    await hooks.until(() => dns.queriesFor(silent).length > 2 * 2 * 2, "the silent app's next attempts");
    expect(hooks.received.every((hook) => hook.event.type === "transaction.included")).to.equal(true);
  });

  it("refuses a private-address URL, from the operator and from the app", async () => {
    const cli = await adminWith(HOOK_SETTINGS, setup.database, "webhooks", "add", setup.appId, "https://10.1.2.3/hook");
    expect(cli.code).to.not.equal(0);
    expect(cli.err + cli.out).to.match(/private/);
    const service = await start();
    const api = await fetch(`${service.url}/v1/webhooks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${setup.appToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://169.254.169.254/latest/meta-data/" }),
    });
    expect(api.status).to.equal(400);
    expect(((await api.json()) as { code: string }).code).to.equal("WEBHOOK_URL_NOT_ALLOWED");
    const list = await adminWith(HOOK_SETTINGS, setup.database, "webhooks", "list", setup.appId);
    expect(list.out).to.not.match(/10\.1\.2\.3|169\.254/);
  });
});
