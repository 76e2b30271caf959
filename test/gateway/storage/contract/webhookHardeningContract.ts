import { expect } from "chai";
import { recordTestEvent } from "../../../../gateway/webhooks/testEvents";
import { createRepositories } from "../../../../gateway/storage/repositories";
import { TEST_KEYS, testKeyring, type OpenTestDatabase } from "../builders";
import {
  addEndpoint,
  claimAll,
  CLAIM_MS,
  delivered,
  deliveryRow,
  openWebhookStore,
  testBody,
  type WebhookStore,
} from "./webhookFixtures";

const DAY = 86_400_000;

/**
 * What keeps one app, a hanging receiver or an operator's key change from holding every app's webhooks back: shares
 * of the attempts in flight, a disabled endpoint's backlog held out of the claims, secrets of an unknown key left for
 * a process that has it, and finished deliveries deleted after their retention.
 */
export function webhookHardeningContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: webhook delivery under pressure (${dialect})`, () => {
    let store: WebhookStore;
    beforeEach(async () => {
      store = await openWebhookStore(open);
    });
    afterEach(() => store.database.close());

    const owe = async (endpointId: string, n: number) => {
      for (let i = 0; i < n; i++) await recordTestEvent(store.repos.webhooks, endpointId, testBody);
    };

    it("an app whose receivers hang holds its share of the attempts in flight; another app's still go out", async () => {
      const { repos, appId, otherAppId } = store;
      const slow = [await addEndpoint(repos, appId), await addEndpoint(repos, appId), await addEndpoint(repos, appId)];
      for (const { endpoint } of slow) await owe(endpoint.id, 10);
      const other = await addEndpoint(repos, otherAppId);
      await owe(other.endpoint.id, 1);
      const shares = { limit: 16, claimMs: CLAIM_MS, perEndpoint: 2, perApp: 4 };
      const first = await repos.webhooks.claimDue(shares);
      const byEndpoint = (claims: typeof first, id: string) => claims.filter((claim) => claim.endpointId === id);
      expect(first.filter((claim) => claim.appId === appId)).to.have.length(4);
      for (const { endpoint } of slow) expect(byEndpoint(first, endpoint.id).length).to.be.at.most(2);
      expect(byEndpoint(first, other.endpoint.id)).to.have.length(1);
      // While those attempts are in flight (claimed, counted from the database: any instance's), no more of that app.
      expect(await repos.webhooks.claimDue(shares)).to.deep.equal([]);
      // One settles: one more of the app may go.
      await repos.webhooks.recordAttempt(first[0]!, delivered(store.clock.now()), undefined);
      expect(await repos.webhooks.claimDue(shares)).to.have.length(1);
    });

    it("holds a disabled endpoint's deliveries out of the claims, including events recorded while it is disabled", async () => {
      const { repos, db, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const before = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      await repos.webhooks.setStatus(endpoint.id, { enabled: false, reason: "test" });
      const during = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      expect((await deliveryRow(db, before.deliveryId)).status).to.equal("held");
      expect((await deliveryRow(db, during.deliveryId)).status).to.equal("held");
      expect(await claimAll(repos)).to.deep.equal([]);
      expect((await repos.webhooks.queue()).pending).to.equal(0);
      // Redelivered while disabled: held again, not pending.
      expect(await repos.webhooks.redeliver(before.eventId)).to.equal(1);
      expect((await deliveryRow(db, before.deliveryId)).status).to.equal("held");
      await repos.webhooks.setStatus(endpoint.id, { enabled: true });
      expect((await claimAll(repos)).map((claim) => claim.deliveryId).sort()).to.deep.equal(
        [before.deliveryId, during.deliveryId].sort(),
      );
    });

    it("leaves a delivery whose secret is sealed under a key this process lacks for one that has it: not disabled", async () => {
      const { repos, database, clock, appId } = store;
      const { endpoint, secret } = await addEndpoint(repos, appId);
      await owe(endpoint.id, 1);
      // Another instance already runs on a new SECRETS_KEY and sealed the secret again under it.
      const renewed = createRepositories(database.db, clock.now, {
        secrets: testKeyring(TEST_KEYS.other, TEST_KEYS.current),
      });
      await renewed.webhooks.resealSecrets();
      expect(await claimAll(repos)).to.deep.equal([]);
      expect(await repos.webhooks.findEndpoint(endpoint.id)).to.include({ status: "enabled" });
      // Released at once, not left claimed: the instance with the key sends it now.
      const [claim] = await claimAll(renewed);
      expect(claim?.secret).to.equal(secret);
    });

    it("claims nothing without SECRETS_KEY: a process that cannot sign leaves the work to one that can", async () => {
      const { repos, database, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      await owe(endpoint.id, 1);
      const keyless = createRepositories(database.db, clock.now);
      const refused = await keyless.webhooks.claimDue({ limit: 5, claimMs: CLAIM_MS }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(Error);
      expect(await claimAll(repos)).to.have.length(1);
    });

    it("deletes deliveries finished before the retention cut-off, their attempts and events; keeps what is owed", async () => {
      const { repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const done = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const owed = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      const [claim] = (await claimAll(repos)).filter((c) => c.deliveryId === done.deliveryId);
      await repos.webhooks.recordAttempt(claim!, delivered(clock.now()), undefined);
      clock.advance(31 * DAY);
      const recent = await recordTestEvent(repos.webhooks, endpoint.id, testBody);
      expect(await repos.webhooks.prune(new Date(clock.now().getTime() - 30 * DAY), 1)).to.equal(1);
      const left = await db.selectFrom("webhook_deliveries").select("id").orderBy("id").execute();
      expect(left.map((row) => row.id).sort()).to.deep.equal([owed.deliveryId, recent.deliveryId].sort());
      const events = await db.selectFrom("webhook_events").select("id").execute();
      expect(events.map((row) => row.id).sort()).to.deep.equal([owed.eventId, recent.eventId].sort());
      expect(await db.selectFrom("webhook_attempts").selectAll().execute()).to.deep.equal([]);
    });
  });
}
