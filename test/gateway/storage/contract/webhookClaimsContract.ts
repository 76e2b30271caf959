import { expect } from "chai";
import { recordTestEvent } from "../../../../gateway/webhooks/testEvents";
import type { OpenTestDatabase } from "../builders";
import {
  addEndpoint,
  bundleOf,
  claimAll,
  CLAIM_MS,
  delivered,
  deliveryRow,
  included,
  openWebhookStore,
  serverError,
  testBody,
  userOpOf,
  walletTx,
  type WebhookStore,
} from "./webhookFixtures";

const HOUR = 3_600_000;

/**
 * How deliveries are claimed and settled, on a fresh database per test from `open`: a claim is exclusive until it ends,
 * a crashed claimer's work is taken again, a request's events go to an endpoint in order, and an outcome counts only
 * under the claim it was made under.
 */
export function webhookClaimsContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: webhook delivery claims (${dialect})`, () => {
    let store: WebhookStore;
    beforeEach(async () => {
      store = await openWebhookStore(open);
    });
    afterEach(() => store.database.close());

    /** A wallet request of acme, recorded in bundle `nonce`: its submitted event is owed. */
    const submit = async (nonce: number) => {
      const { record } = await store.repos.transactions.create(walletTx(store.appId, nonce));
      await store.repos.transactions.recordBundle(bundleOf(nonce), [userOpOf(record.id)]);
      return record.id;
    };

    it("claims a due delivery with all it takes to send it: URL, opened secret, body, event and endpoint", async () => {
      const { repos, clock, appId } = store;
      const { endpoint, secret } = await addEndpoint(repos, appId, [], "https://hooks.example.com/in");
      const { eventId, deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [claim, ...rest] = await claimAll(repos);
      expect(rest).to.deep.equal([]);
      expect(claim).to.deep.include({
        deliveryId,
        eventId,
        eventType: "webhook.test",
        eventAt: clock.now().toISOString(),
        body: testBody(eventId, clock.now()),
        endpointId: endpoint.id,
        appId,
        secret,
        attemptsBefore: 0,
        url: "https://hooks.example.com/in",
      });
      expect(claim?.claimToken).to.be.a("string").that.is.not.empty;
    });

    it("a claimed delivery is nobody else's until the claim ends; then a crashed claimer's work is retaken", async () => {
      const { repos, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const { deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [first] = await claimAll(repos);
      expect(await claimAll(repos)).to.deep.equal([]);
      expect(await repos.webhooks.claimDue({ limit: 1, claimMs: CLAIM_MS, deliveryId })).to.deep.equal([]);
      clock.advance(CLAIM_MS - 1);
      expect(await claimAll(repos)).to.deep.equal([]);
      clock.advance(1);
      const [again] = await claimAll(repos);
      expect(again).to.deep.include({ deliveryId, attemptsBefore: 0 });
      expect(again?.claimToken).to.not.equal(first?.claimToken);
    });

    it("claims nothing of a disabled endpoint; re-enabled, what it is owed is due at once", async () => {
      const { repos, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const { deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [claim] = await claimAll(repos);
      await repos.webhooks.recordAttempt(claim!, serverError(clock.now()), new Date(clock.now().getTime() + 24 * HOUR));
      expect(await repos.webhooks.setStatus(endpoint.id, { enabled: false, reason: "failing" })).to.equal(true);
      const test = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      clock.advance(HOUR);
      expect(await claimAll(repos)).to.deep.equal([]);
      expect(await repos.webhooks.claimDue({ limit: 1, claimMs: CLAIM_MS, deliveryId: test.deliveryId })).to.deep.equal(
        [],
      );
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.deep.include({
        status: "disabled",
        disabledReason: "failing",
        consecutiveFailures: 1,
      });
      expect(await repos.webhooks.setStatus(endpoint.id, { enabled: true })).to.equal(true);
      // 23 hours before its retry was due: re-enabling puts the schedule's wait aside.
      const claims = await claimAll(repos);
      expect(claims.map((c) => c.deliveryId).sort()).to.deep.equal([deliveryId, test.deliveryId].sort());
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.deep.include({
        status: "enabled",
        disabledReason: undefined,
        consecutiveFailures: 0,
        failingSince: undefined,
      });
      expect(await repos.webhooks.setStatus("ep_unknown", { enabled: true })).to.equal(false);
    });

    it("holds a request's later event to an endpoint while its earlier one is owed there, even when due", async () => {
      const { repos, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const x = await submit(1);
      const [submitted] = await claimAll(repos);
      await repos.webhooks.recordAttempt(submitted!, serverError(clock.now()), new Date(clock.now().getTime() + HOUR));
      await repos.transactions.settle(x, included);
      const y = await submit(2);
      // X's included event is due now but waits behind its submitted one; Y is another request and goes.
      const [yClaim, ...none] = await claimAll(repos);
      expect(none).to.deep.equal([]);
      expect(yClaim).to.deep.include({ eventType: "transaction.submitted", endpointId: endpoint.id });
      expect(JSON.parse(yClaim!.body).data.id).to.equal(y);
      await repos.webhooks.recordAttempt(yClaim!, delivered(clock.now()), undefined);
      const xIncluded = (
        await store.db.selectFrom("webhook_deliveries").select("id").orderBy("event_seq").execute()
      )[1]!;
      expect(await repos.webhooks.claimDue({ limit: 1, claimMs: CLAIM_MS, deliveryId: xIncluded.id })).to.deep.equal(
        [],
      );
      clock.advance(HOUR);
      const [retry, ...alone] = await claimAll(repos);
      expect(alone).to.deep.equal([]);
      expect(retry).to.deep.include({ deliveryId: submitted!.deliveryId, attemptsBefore: 1 });
      await repos.webhooks.recordAttempt(retry!, delivered(clock.now()), undefined);
      const [next] = await claimAll(repos);
      expect(next).to.deep.include({ deliveryId: xIncluded.id, eventType: "transaction.included" });
    });

    it("a request's earlier event that failed for good no longer holds its later one", async () => {
      const { repos, clock, appId } = store;
      await addEndpoint(repos, appId);
      const x = await submit(1);
      const [submitted] = await claimAll(repos);
      await repos.transactions.settle(x, included);
      expect(await claimAll(repos)).to.deep.equal([]);
      await repos.webhooks.recordAttempt(submitted!, serverError(clock.now()), undefined);
      const [next] = await claimAll(repos);
      expect(next).to.deep.include({ eventType: "transaction.included" });
    });

    it("an outcome recorded under a stale claim is kept as an attempt but changes nothing of the delivery", async () => {
      const { repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const { deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [stale] = await claimAll(repos);
      clock.advance(CLAIM_MS);
      const [current] = await claimAll(repos);
      await repos.webhooks.recordAttempt(stale!, delivered(clock.now()), undefined);
      expect(await repos.webhooks.attempts(endpoint.id, 10)).to.have.length(1);
      expect(await deliveryRow(db, deliveryId)).to.deep.include({
        status: "pending",
        attempts: 0,
        delivered_at: null,
        claim_token: current!.claimToken,
      });
      expect(await claimAll(repos)).to.deep.equal([]);
      await repos.webhooks.recordAttempt(current!, delivered(clock.now()), undefined);
      expect(await deliveryRow(db, deliveryId)).to.deep.include({
        status: "delivered",
        attempts: 1,
        claim_token: null,
      });
    });

    it("a failed attempt with a retry time keeps the delivery pending until then; without one it fails for good", async () => {
      const { repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const { deliveryId } = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [claim] = await claimAll(repos);
      const retryAt = new Date(clock.now().getTime() + 60_000);
      await repos.webhooks.recordAttempt(claim!, serverError(clock.now()), retryAt);
      expect(await deliveryRow(db, deliveryId)).to.deep.include({
        status: "pending",
        attempts: 1,
        next_attempt_at: retryAt.toISOString(),
        last_status_code: 500,
      });
      clock.advance(59_999);
      expect(await claimAll(repos)).to.deep.equal([]);
      clock.advance(1);
      const [retry] = await claimAll(repos);
      expect(retry).to.deep.include({ deliveryId, attemptsBefore: 1 });
      await repos.webhooks.recordAttempt(
        retry!,
        { outcome: "timeout", durationMs: 10_000, at: clock.now() },
        undefined,
      );
      expect(await deliveryRow(db, deliveryId)).to.deep.include({ status: "failed", attempts: 2, claim_token: null });
      clock.advance(24 * HOUR);
      expect(await claimAll(repos)).to.deep.equal([]);
      expect(await repos.webhooks.claimDue({ limit: 1, claimMs: CLAIM_MS, deliveryId })).to.deep.equal([]);
    });

    it("an endpoint's run of failures: raised by each failure, begun once, ended by a delivery", async () => {
      const { repos, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      for (let i = 0; i < 3; i++) await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [a, b, c] = await claimAll(repos);
      const began = clock.now().toISOString();
      const later = new Date(clock.now().getTime() + HOUR);
      expect(await repos.webhooks.recordAttempt(a!, serverError(clock.now()), later)).to.deep.equal({
        consecutiveFailures: 1,
        failingSince: began,
      });
      clock.advance(1000);
      expect(await repos.webhooks.recordAttempt(b!, serverError(clock.now()), later)).to.deep.equal({
        consecutiveFailures: 2,
        failingSince: began,
      });
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.deep.include({
        consecutiveFailures: 2,
        failingSince: began,
      });
      expect(await repos.webhooks.recordAttempt(c!, delivered(clock.now()), undefined)).to.deep.equal({
        consecutiveFailures: 0,
        failingSince: undefined,
      });
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.deep.include({
        consecutiveFailures: 0,
        failingSince: undefined,
      });
    });
  });
}
