import { expect } from "chai";
import { recordTestEvent } from "../../../gateway/webhooks/testEvents";
import { performance } from "node:perf_hooks";
import { WebhookSettings } from "../../../gateway/config/webhookSettings";
import { openDatabase, type Database } from "../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../gateway/storage/repositories";
import { startWebhookDelivery, type WebhookDelivery } from "../../../gateway/webhooks/deliveryWorker";
import type { DeliveryAttempt } from "../../../gateway/webhooks/webhookDelivery";
import { newWebhookSecret } from "../../../gateway/webhooks/webhookEndpoint";
import { postWebhook } from "../../../gateway/webhooks/webhookPost";
import { capturingLogger } from "../../helpers/capturingLogger";
import { startTestNameserver, type TestNameserver } from "../../helpers/testNameserver";
import { startWebhookReceiver } from "../../helpers/webhookReceiver";
import { testKeyring } from "../storage/builders";

type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

// Names under localhost may be plain http to a loopback receiver (WEBHOOK_ALLOW_LOOPBACK), and are asked of the
// nameservers like any name: the attacker's nameserver drops A's, the honest one answers B's.
const A_NAMES = ["hooks.slow-a.localhost", "other.slow-a.localhost"];
const B_NAME = "hooks.honest-b.localhost";
const TIMEOUT_MS = 1000;
const RETRY_SECONDS = 1;

const testBody = (eventId: string, at: Date): string =>
  JSON.stringify({ type: "webhook.test", timestamp: at.toISOString(), data: { eventId } });

describe("webhooks: one app's nameserver that never answers, against every other app's deliveries", function () {
  this.timeout(60_000);
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  const dropped = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, "drop" as const]));
  const nameserver = async (): Promise<TestNameserver> => {
    const started = await startTestNameserver({ [B_NAME]: ["127.0.0.1"], ...dropped(A_NAMES) });
    closers.push(started.close);
    return started;
  };
  const receiver = async (): Promise<Receiver> => {
    const started = await startWebhookReceiver();
    closers.push(started.close);
    return started;
  };

  it("an app whose endpoints' nameserver drops every query starves no other app: B's deliveries keep their latency, A's attempts end at their deadline and are retried per the schedule", async () => {
    const dns = await nameserver();
    const hooksA = await receiver();
    const hooksB = await receiver();
    const database: Database = await openDatabase(":memory:");
    closers.push(() => database.close());
    const repos: Repositories = createRepositories(database.db, () => new Date(), { secrets: testKeyring() });
    const appA = (await repos.apps.create({ name: "slow-dns" })).app.id;
    const appB = (await repos.apps.create({ name: "honest" })).app.id;
    const port = (url: string) => new URL(url).port;
    const add = (appId: string, host: string, hooks: Receiver) =>
      repos.webhooks.addEndpoint(
        { appId, url: `http://${host}:${port(hooks.url)}/hooks`, events: [], secret: newWebhookSecret() },
        10,
      );
    const endpointsA = await Promise.all(A_NAMES.map((name) => add(appA, name, hooksA)));
    const endpointB = await add(appB, B_NAME, hooksB);

    const settings = WebhookSettings.parse({
      allowLoopback: true,
      pollMs: 20,
      timeoutMs: TIMEOUT_MS,
      retrySeconds: Array(10).fill(RETRY_SECONDS),
      dnsServers: [dns.server],
    });
    const delivery: WebhookDelivery = startWebhookDelivery({
      repository: repos.webhooks,
      settings,
      clock: () => new Date(),
      logger: capturingLogger([]),
    });
    closers.push(() => delivery.stop());

    /** Records one event for B and waits until B's receiver has it (5 s at most): how long that took. */
    const deliverToB = async (): Promise<number> => {
      const before = hooksB.received.length;
      const started = performance.now();
      await recordTestEvent(repos.webhooks, endpointB.id, testBody);
      await waitFor(() => hooksB.received.length > before || performance.now() - started > 5 * TIMEOUT_MS, "B");
      return performance.now() - started;
    };

    // B's normal latency, with nothing else owed.
    const normal: number[] = [];
    for (let i = 0; i < 3; i++) normal.push(await deliverToB());
    const normalMs = Math.max(...normal);

    // A's endpoints are owed as many deliveries as its share of attempts: each starts with a look-up that hangs.
    for (const endpoint of endpointsA)
      for (let i = 0; i < settings.endpointConcurrency; i++)
        await recordTestEvent(repos.webhooks, endpoint.id, testBody);
    await waitFor(() => A_NAMES.some((name) => dns.queriesFor(name).length > 0), "A's look-ups");

    const underAttack: number[] = [];
    const attackStarted = performance.now();
    while (performance.now() - attackStarted < 3.5 * TIMEOUT_MS) underAttack.push(await deliverToB());

    // Close to its normal latency, and nowhere near an attempt's deadline (where a queued look-up would end it).
    const bound = Math.min(normalMs + 300, 0.75 * TIMEOUT_MS);
    expect(
      underAttack.every((ms) => ms < bound),
      `B's latencies ${fmt(underAttack)} ms under attack, ${fmt(normal)} ms normally`,
    ).to.equal(true);
    expect(hooksB.received).to.have.length(normal.length + underAttack.length);

    // A's look-ups hung all along (its receiver saw nothing), yet each attempt ended by its deadline and the next came
    // after the schedule's delay (±20 % jitter), not after a look-up finally gave up.
    expect(hooksA.received).to.have.length(0);
    expect(
      A_NAMES.every((name) => dns.queriesFor(name).length > 0),
      "both of A's names were asked",
    ).to.equal(true);
    for (const endpoint of endpointsA) {
      const attempts = await repos.webhooks.attempts(endpoint.id, 100);
      expect(attempts.length, `attempts to ${endpoint.url}`).to.be.at.least(settings.endpointConcurrency * 2);
      for (const attempt of attempts) {
        expect(["network_error", "timeout"]).to.include(attempt.outcome);
        expect(attempt.durationMs).to.be.at.most(TIMEOUT_MS + 100);
      }
      for (const [earlier, later] of retriesOf(attempts)) {
        const waited = Date.parse(later.at) - (Date.parse(earlier.at) + earlier.durationMs);
        expect(waited, `${earlier.deliveryId}: retry ${later.attempt} after ${waited} ms`).to.be.within(
          0.8 * RETRY_SECONDS * 1000 - 50,
          1.2 * RETRY_SECONDS * 1000 + 500,
        );
      }
    }
  });

  it("a look-up whose attempt ended is dropped: no query is sent for it after the deadline, and it holds nothing another name's look-up waits for", async () => {
    // Three nameservers, as a resolv.conf may list: a look-up that asks each in turn outlasts the attempt, unless the
    // attempt's end cancels it.
    const servers = [await nameserver(), await nameserver(), await nameserver()];
    const hooksB = await receiver();
    const dnsServers = servers.map((server) => server.server);
    const options = { timeoutMs: TIMEOUT_MS, rules: { allowLoopback: true, allowPrivate: false }, dnsServers };
    const urlOf = (host: string) => `http://${host}:${new URL(hooksB.url).port}/hooks`;

    const hung = await Promise.all(A_NAMES.map((name) => postWebhook(urlOf(name), {}, "{}", options)));
    const ended = performance.now();
    for (const result of hung) expect(result.outcome).to.equal("timeout");

    // Whatever look-up slots there are, both hung attempts held one: B's look-up must not wait for them.
    const started = performance.now();
    const honest = await postWebhook(urlOf(B_NAME), {}, "{}", options);
    expect(honest.outcome, honest.error).to.equal("delivered");
    expect(performance.now() - started).to.be.below(TIMEOUT_MS / 2);

    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
    const queriesA = servers.flatMap((server) => A_NAMES.flatMap((name) => server.queriesFor(name)));
    expect(queriesA.length, "A's look-ups reached the nameservers").to.be.greaterThan(0);
    const late = queriesA.filter((query) => query.at > ended + 50);
    expect(late, `queries for A after its attempts ended at ${Math.round(ended)}`).to.deep.equal([]);
  });
});

/** Each attempt paired with the same delivery's next one. */
function retriesOf(attempts: readonly DeliveryAttempt[]): [DeliveryAttempt, DeliveryAttempt][] {
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  for (const attempt of attempts)
    byDelivery.set(attempt.deliveryId, [...(byDelivery.get(attempt.deliveryId) ?? []), attempt]);
  return [...byDelivery.values()].flatMap((list) => {
    const sorted = [...list].sort((x, y) => x.attempt - y.attempt);
    return sorted.slice(1).map((later, i): [DeliveryAttempt, DeliveryAttempt] => [sorted[i]!, later]);
  });
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const fmt = (list: readonly number[]): string => list.map((ms) => Math.round(ms)).join(", ");
