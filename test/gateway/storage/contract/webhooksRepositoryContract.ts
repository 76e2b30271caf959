import { expect } from "chai";
import { recordTestEvent } from "../../../../gateway/webhooks/testEvents";
import { SecretsKeyError } from "../../../../gateway/crypto/secretsKeyring";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { EndpointLimitError } from "../../../../gateway/webhooks/webhooksRepository";
import { newWebhookSecret } from "../../../../gateway/webhooks/webhookEndpoint";
import { TEST_KEYS, testKeyring, type OpenTestDatabase } from "../builders";
import {
  addEndpoint,
  claimAll,
  CLAIM_MS,
  delivered,
  eventRows,
  NO_LIMIT,
  openWebhookStore,
  serverError,
  testBody,
  userOpOf,
  walletTx,
  type WebhookStore,
} from "./webhookFixtures";

/** What a promise threw, or undefined if it did not. */
const thrown = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/**
 * What the webhooks repository keeps of endpoints, attempts and the queue, on a fresh database per test from `open`:
 * secrets only sealed, every app confined to its own endpoints, the per-app limit, and what operators and metrics read.
 */
export function webhooksRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: webhook endpoints (${dialect})`, () => {
    let store: WebhookStore;
    beforeEach(async () => {
      store = await openWebhookStore(open);
    });
    afterEach(() => store.database.close());

    it("stores the signing secret only sealed, returns no secret with the endpoint, and a claim opens it", async () => {
      const { repos, db, appId } = store;
      const { endpoint, secret } = await addEndpoint(repos, appId, ["transaction.included"]);
      expect(endpoint).to.deep.include({ appId, events: ["transaction.included"], status: "enabled" });
      expect(endpoint).to.deep.include({ consecutiveFailures: 0, failingSince: undefined, disabledReason: undefined });
      expect(JSON.stringify(endpoint)).to.not.include(secret.slice("whsec_".length));
      const row = await db.selectFrom("webhook_endpoints").selectAll().executeTakeFirstOrThrow();
      // Neither the secret nor its key material (the base64 after the prefix) is anywhere in the row.
      expect(JSON.stringify(row)).to.not.include(secret.slice("whsec_".length, 20));
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [claim] = await claimAll(repos);
      expect(claim?.secret).to.equal(secret);
    });

    it("a sealed secret copied into another endpoint's row does not open there", async () => {
      const { repos, db, appId, otherAppId } = store;
      const victim = await addEndpoint(repos, appId);
      const attacker = await addEndpoint(repos, otherAppId);
      const { secret_sealed } = await db
        .selectFrom("webhook_endpoints")
        .select("secret_sealed")
        .where("id", "=", victim.endpoint.id)
        .executeTakeFirstOrThrow();
      await db.updateTable("webhook_endpoints").set({ secret_sealed }).where("id", "=", attacker.endpoint.id).execute();
      await recordTestEvent(repos.webhooks, attacker.endpoint.id, testBody);
      // Its delivery is not sent (it would be signed with the victim's secret): the endpoint is disabled, naming why,
      // while another endpoint's delivery in the same claim still goes out.
      await recordTestEvent(repos.webhooks, victim.endpoint.id, testBody);
      const claims = await claimAll(repos);
      expect(claims.map((claim) => claim.endpointId)).to.deep.equal([victim.endpoint.id]);
      const disabled = await repos.webhooks.findEndpoint(attacker.endpoint.id);
      expect(disabled).to.include({ status: "disabled" });
      expect(disabled?.disabledReason).to.match(/does not open under SECRETS_KEY/);
    });

    it("seals signing secrets of the previous SECRETS_KEY again, so deliveries go on once it is dropped", async () => {
      const { repos, database, clock, appId } = store;
      const before = await addEndpoint(repos, appId);
      await recordTestEvent(repos.webhooks, before.endpoint.id, testBody);
      const rotated = createRepositories(database.db, clock.now, {
        secrets: testKeyring(TEST_KEYS.other, TEST_KEYS.current),
      });
      expect(await rotated.webhooks.resealSecrets()).to.equal(1);
      expect(await rotated.webhooks.resealSecrets()).to.equal(0);
      const dropped = createRepositories(database.db, clock.now, { secrets: testKeyring(TEST_KEYS.other) });
      const [claim] = await claimAll(dropped);
      expect(claim?.secret).to.equal(before.secret);
    });

    it("lists one app's endpoints or every app's, oldest first, and finds one by id", async () => {
      const { repos, clock, appId, otherAppId } = store;
      const first = (await addEndpoint(repos, appId, [], "https://a.example.com/1")).endpoint;
      clock.advance(1000);
      const theirs = (await addEndpoint(repos, otherAppId, [], "https://b.example.com/1")).endpoint;
      clock.advance(1000);
      const second = (await addEndpoint(repos, appId, [], "https://a.example.com/2")).endpoint;
      expect(await repos.webhooks.listEndpoints(appId)).to.deep.equal([first, second]);
      expect(await repos.webhooks.listEndpoints(otherAppId)).to.deep.equal([theirs]);
      expect(await repos.webhooks.listEndpoints()).to.deep.equal([first, theirs, second]);
      expect(await repos.webhooks.findEndpoint(theirs.id)).to.deep.equal(theirs);
      expect(await repos.webhooks.findEndpoint("ep_unknown")).to.equal(undefined);
    });

    it("removes an endpoint only for the app that owns it", async () => {
      const { repos, appId, otherAppId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      expect(await repos.webhooks.removeEndpoint(endpoint.id, otherAppId)).to.equal(false);
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.deep.equal(endpoint);
      expect(await repos.webhooks.removeEndpoint(endpoint.id, appId)).to.equal(true);
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.equal(undefined);
      expect(await repos.webhooks.removeEndpoint(endpoint.id, appId)).to.equal(false);
    });

    it("a rotated secret is the one the next claim carries, even for an event recorded before the rotation", async () => {
      const { repos, appId } = store;
      const { endpoint, secret } = await addEndpoint(repos, appId);
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const rotated = newWebhookSecret();
      expect(await repos.webhooks.rotateSecret(endpoint.id, rotated)).to.equal(true);
      const [claim] = await claimAll(repos);
      expect(claim?.secret).to.equal(rotated).and.not.equal(secret);
      expect(await repos.webhooks.rotateSecret("ep_unknown", newWebhookSecret())).to.equal(false);
    });

    it("a secret rotated with an overlap still signs beside the new one until the overlap ends", async () => {
      const { repos, clock, appId } = store;
      const { endpoint, secret } = await addEndpoint(repos, appId);
      const rotated = newWebhookSecret();
      expect(await repos.webhooks.rotateSecret(endpoint.id, rotated, 60_000)).to.equal(true);
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [during] = await claimAll(repos);
      expect([during?.secret, during?.previousSecret]).to.deep.equal([rotated, secret]);
      clock.advance(60_001);
      const [after] = await claimAll(repos);
      expect(after?.secret).to.equal(rotated);
      expect(after).to.not.have.property("previousSecret");
      // A second rotation without overlap drops it at once.
      await repos.webhooks.rotateSecret(endpoint.id, newWebhookSecret(), 60_000);
      await repos.webhooks.rotateSecret(endpoint.id, newWebhookSecret());
      clock.advance(CLAIM_MS + 1);
      const [revoked] = await claimAll(repos);
      expect(revoked).to.not.have.property("previousSecret");
    });

    it("refuses an endpoint past the app's limit, storing nothing; another app's count is its own", async () => {
      const { repos, db, appId, otherAppId } = store;
      const add = (app: string) =>
        repos.webhooks.addEndpoint({ appId: app, url: "https://a.example.com/", events: [], secret: "whsec_x" }, 2);
      await add(appId);
      await add(appId);
      const error = await thrown(add(appId));
      expect(error).to.be.instanceOf(EndpointLimitError);
      expect((error as EndpointLimitError).limit).to.equal(2);
      const rows = await db.selectFrom("webhook_endpoints").select("id").where("app_id", "=", appId).execute();
      expect(rows).to.have.length(2);
      await add(otherAppId);
      expect(await repos.webhooks.listEndpoints(otherAppId)).to.have.length(1);
    });

    it("without SECRETS_KEY refuses to add an endpoint or rotate its secret (SecretsKeyError), storing nothing", async () => {
      const { database, repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const before = await db.selectFrom("webhook_endpoints").selectAll().execute();
      const keyless = createRepositories(database.db, clock.now).webhooks;
      const endpointOf = { appId, url: "https://a.example.com/", events: [], secret: newWebhookSecret() };
      expect(await thrown(keyless.addEndpoint(endpointOf, NO_LIMIT))).to.be.instanceOf(SecretsKeyError);
      expect(await thrown(keyless.rotateSecret(endpoint.id, newWebhookSecret()))).to.be.instanceOf(SecretsKeyError);
      expect(await db.selectFrom("webhook_endpoints").selectAll().execute()).to.deep.equal(before);
    });
  });

  describe(`storage: webhook attempts, redelivery and the queue (${dialect})`, () => {
    let store: WebhookStore;
    beforeEach(async () => {
      store = await openWebhookStore(open);
    });
    afterEach(() => store.database.close());

    it("sends a test event to the one endpoint tested, whatever it subscribed to, with the body made for it", async () => {
      const { repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId, ["safe.failed"]);
      await addEndpoint(repos, appId);
      const { eventId, deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const claims = await claimAll(repos);
      expect(claims).to.have.length(1);
      expect(claims[0]).to.deep.include({ deliveryId, eventId, endpointId: endpoint.id, eventType: "webhook.test" });
      expect(claims[0]?.body).to.equal(testBody(eventId, clock.now()));
      const event = await db.selectFrom("webhook_events").selectAll().executeTakeFirstOrThrow();
      expect(event).to.deep.include({ id: eventId, app_id: appId, tx_id: null });
    });

    it("lists an endpoint's attempts newest first, with the event type and the delivery's state now", async () => {
      const { repos, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const other = (await addEndpoint(repos, appId)).endpoint;
      const { eventId, deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      await recordTestEvent(repos.webhooks, other.id, testBody);
      const mine = (claims: Awaited<ReturnType<typeof claimAll>>) => claims.find((c) => c.endpointId === endpoint.id)!;
      const first = clock.now();
      await repos.webhooks.recordAttempt(
        mine(await claimAll(repos)),
        serverError(first),
        new Date(first.getTime() + 1),
      );
      clock.advance(CLAIM_MS);
      const second = clock.now();
      await repos.webhooks.recordAttempt(mine(await claimAll(repos)), delivered(second), undefined);
      const attempts = await repos.webhooks.attempts(endpoint.id, 10);
      expect(attempts).to.deep.equal([
        {
          eventId,
          eventType: "webhook.test",
          deliveryId,
          attempt: 2,
          at: second.toISOString(),
          outcome: "delivered",
          statusCode: 204,
          error: undefined,
          durationMs: 12,
          deliveryStatus: "delivered",
        },
        {
          eventId,
          eventType: "webhook.test",
          deliveryId,
          attempt: 1,
          at: first.toISOString(),
          outcome: "http_error",
          statusCode: 500,
          error: "HTTP 500",
          durationMs: 30,
          deliveryStatus: "delivered",
        },
      ]);
      expect(await repos.webhooks.attempts(endpoint.id, 1)).to.deep.equal(attempts.slice(0, 1));
      expect(await repos.webhooks.attempts(other.id, 10)).to.deep.equal([]);
    });

    it("redelivers an event: each of its deliveries pending again, due now, from the start of the schedule", async () => {
      const { repos, db, clock, appId } = store;
      await addEndpoint(repos, appId);
      await addEndpoint(repos, appId);
      const { record } = await repos.transactions.create(walletTx(appId));
      await repos.transactions.markSubmitted(userOpOf(record.id));
      const { record: other } = await repos.transactions.create(walletTx(appId, 2));
      await repos.transactions.markSubmitted(userOpOf(other.id));
      for (const claim of await claimAll(repos)) {
        await repos.webhooks.recordAttempt(claim, delivered(clock.now()), undefined);
      }
      clock.advance(60_000);
      const [event] = await eventRows(db);
      expect(await repos.webhooks.redeliver(event!.id)).to.equal(2);
      const rows = await db.selectFrom("webhook_deliveries").selectAll().where("event_seq", "=", event!.seq).execute();
      for (const row of rows) {
        expect(row).to.deep.include({
          status: "pending",
          attempts: 0,
          delivered_at: null,
          next_attempt_at: clock.now().toISOString(),
        });
      }
      const again = await claimAll(repos);
      expect(again.map((claim) => [claim.deliveryId, claim.attemptsBefore]).sort()).to.deep.equal(
        rows.map((row) => [row.id, 0]).sort(),
      );
      // The other request's event stays delivered.
      expect(await repos.webhooks.queue()).to.include({ pending: 2 });
      expect(await repos.webhooks.redeliver("msg_unknown")).to.equal(0);
    });

    it("counts what is owed and when its oldest event happened", async () => {
      const { repos, clock, appId } = store;
      expect(await repos.webhooks.queue()).to.deep.equal({ pending: 0, oldestEventAt: undefined });
      const { endpoint } = await addEndpoint(repos, appId);
      const oldest = clock.now().toISOString();
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      clock.advance(5000);
      const newer = clock.now().toISOString();
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      expect(await repos.webhooks.queue()).to.deep.equal({ pending: 2, oldestEventAt: oldest });
      const [first] = await claimAll(repos);
      await repos.webhooks.recordAttempt(first!, delivered(clock.now()), undefined);
      expect(await repos.webhooks.queue()).to.deep.equal({ pending: 1, oldestEventAt: newer });
    });

    it("counts attempts by endpoint and outcome", async () => {
      const { repos, clock, appId } = store;
      const a = (await addEndpoint(repos, appId)).endpoint;
      const b = (await addEndpoint(repos, appId)).endpoint;
      for (const endpoint of [a, a, b]) await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const claims = await claimAll(repos);
      const [a1, a2, b1] = [
        ...claims.filter((c) => c.endpointId === a.id),
        ...claims.filter((c) => c.endpointId === b.id),
      ];
      await repos.webhooks.recordAttempt(a1!, delivered(clock.now()), undefined);
      await repos.webhooks.recordAttempt(a2!, serverError(clock.now()), undefined);
      await repos.webhooks.recordAttempt(b1!, serverError(clock.now()), undefined);
      const counts = await repos.webhooks.attemptCounts();
      const key = (c: { endpointId: string; outcome: string }) => `${c.endpointId}/${c.outcome}`;
      expect([...counts].sort((x, y) => key(x).localeCompare(key(y)))).to.deep.equal(
        [
          { endpointId: a.id, outcome: "delivered", count: 1 },
          { endpointId: a.id, outcome: "http_error", count: 1 },
          { endpointId: b.id, outcome: "http_error", count: 1 },
        ].sort((x, y) => key(x).localeCompare(key(y))),
      );
    });

    it("removing an endpoint removes what it was owed and its attempts; a late outcome for it is ignored", async () => {
      const { repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const kept = (await addEndpoint(repos, appId)).endpoint;
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      await recordTestEvent(repos.webhooks, kept.id, testBody);
      const claims = (await claimAll(repos)).filter((c) => c.endpointId === endpoint.id);
      await repos.webhooks.recordAttempt(claims[0]!, serverError(clock.now()), undefined);
      expect(await repos.webhooks.removeEndpoint(endpoint.id)).to.equal(true);
      const owed = await db.selectFrom("webhook_deliveries").select("endpoint_id").execute();
      expect(owed).to.deep.equal([{ endpoint_id: kept.id }]);
      expect(await db.selectFrom("webhook_attempts").selectAll().execute()).to.deep.equal([]);
      // The claimer that was posting when the endpoint went records its outcome: no error, nothing stored.
      const health = await repos.webhooks.recordAttempt(claims[1]!, delivered(clock.now()), undefined);
      expect(health).to.deep.equal({ consecutiveFailures: 0, failingSince: undefined });
      expect(await db.selectFrom("webhook_attempts").selectAll().execute()).to.deep.equal([]);
    });
  });
}
