import { expect } from "chai";
import { LeaseLostError, type LeaseHolder } from "../../../../gateway/leases/lease";
import type { SafeTxRecord, WalletTxRecord } from "../../../../gateway/transactions/txRecord";
import { safeTransactionView, transactionView } from "../../../../gateway/transactions/txViews";
import type { OpenTestDatabase } from "../builders";
import {
  addEndpoint,
  bundleOf,
  deliveryRows,
  eventRows,
  included,
  openWebhookStore,
  safeOpOf,
  safeTx,
  userOpOf,
  walletTx,
  type WebhookStore,
} from "./webhookFixtures";

const failed = { status: "failed", error: { code: "REVERTED", message: "reverted" } } as const;
const holder = (host: string): LeaseHolder => ({ id: host, host, pid: 1, pidNamespace: `${host}/pid:[1]` });

/**
 * The outbox, driven through the transactions repository on a fresh database per test from `open`: an app with an
 * endpoint is owed an event, with the request's GET view of that moment, in the transaction that changed the request;
 * never twice for one step, never backwards, never to another app, never for a change rolled back.
 */
export function webhookOutboxContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: webhook outbox of request events (${dialect})`, () => {
    let store: WebhookStore;
    beforeEach(async () => {
      store = await openWebhookStore(open);
    });
    afterEach(() => store.database.close());

    const find = async (id: string) => (await store.repos.transactions.find(id))!;
    const types = async () => (await eventRows(store.db)).map((event) => event.type);

    it("announces a wallet request submitted when recorded in a bundle, included when settled, with its GET view then", async () => {
      const { repos, db, clock, appId } = store;
      const { endpoint } = await addEndpoint(repos, appId);
      const { record } = await repos.transactions.create(walletTx(appId));
      expect(await eventRows(db)).to.deep.equal([]);
      clock.advance(1000);
      const bundle = await repos.transactions.recordBundle(bundleOf(0), [userOpOf(record.id)]);
      const submittedView = transactionView((await find(record.id)) as WalletTxRecord);
      const submittedAt = clock.now().toISOString();
      clock.advance(1000);
      await repos.transactions.settleBundle(bundle.id, { status: "mined" }, new Map([[record.id, included]]));
      const includedView = transactionView((await find(record.id)) as WalletTxRecord);
      const events = await eventRows(db);
      expect(events.map((event) => JSON.parse(event.body))).to.deep.equal([
        { type: "transaction.submitted", timestamp: submittedAt, data: submittedView },
        { type: "transaction.included", timestamp: clock.now().toISOString(), data: includedView },
      ]);
      expect(submittedView).to.include({ status: "submitted" });
      expect(includedView).to.include({ status: "included", blockNumber: 7, success: true });
      expect(events.map((event) => ({ app: event.app_id, tx: event.tx_id }))).to.deep.equal([
        { app: appId, tx: record.id },
        { app: appId, tx: record.id },
      ]);
      const deliveries = await deliveryRows(db);
      expect(deliveries.map((d) => [d.type, d.endpoint_id, d.status])).to.deep.equal([
        ["transaction.submitted", endpoint.id, "pending"],
        ["transaction.included", endpoint.id, "pending"],
      ]);
    });

    it("announces a request retried (queued again, submitted again) submitted once", async () => {
      const { repos, clock, appId } = store;
      await addEndpoint(repos, appId);
      const { record } = await repos.transactions.create(walletTx(appId));
      await repos.transactions.recordBundle(bundleOf(0), [userOpOf(record.id)]);
      await repos.transactions.settle(record.id, { status: "queued", nextAttemptAt: clock.now() });
      expect(await types()).to.deep.equal(["transaction.submitted"]);
      await repos.transactions.recordBundle(bundleOf(1), [userOpOf(record.id)]);
      await repos.transactions.markSubmitted(userOpOf(record.id));
      expect(await types()).to.deep.equal(["transaction.submitted"]);
      await repos.transactions.settle(record.id, failed);
      expect(await types()).to.deep.equal(["transaction.submitted", "transaction.failed"]);
    });

    it("records a final event once and nothing after it, whatever is recorded of the request later", async () => {
      const { repos, appId } = store;
      await addEndpoint(repos, appId);
      const { record } = await repos.transactions.create(walletTx(appId));
      await repos.transactions.markSubmitted(userOpOf(record.id));
      await repos.transactions.settle(record.id, included);
      await repos.transactions.settle(record.id, included);
      await repos.transactions.settle(record.id, failed);
      // A late submission (a stale worker's) must not announce a step back.
      await repos.transactions.recordBundle(bundleOf(0), [userOpOf(record.id)]);
      expect(await types()).to.deep.equal(["transaction.submitted", "transaction.included"]);
    });

    it("records no event at all for an app without endpoints, though another app has one", async () => {
      const { repos, db, appId, otherAppId } = store;
      await addEndpoint(repos, otherAppId);
      const { record } = await repos.transactions.create(walletTx(appId));
      await repos.transactions.markSubmitted(userOpOf(record.id));
      await repos.transactions.settle(record.id, included);
      expect(await eventRows(db)).to.deep.equal([]);
      expect(await deliveryRows(db)).to.deep.equal([]);
    });

    it("owes an event only to the app's endpoints subscribed to its type, never to another app's", async () => {
      const { repos, db, appId, otherAppId } = store;
      const all = (await addEndpoint(repos, appId)).endpoint;
      const final = (await addEndpoint(repos, appId, ["transaction.included"])).endpoint;
      await addEndpoint(repos, appId, ["safe.submitted", "safe.included"]);
      await addEndpoint(repos, otherAppId);
      const { record } = await repos.transactions.create(walletTx(appId));
      await repos.transactions.markSubmitted(userOpOf(record.id));
      await repos.transactions.settle(record.id, included);
      const owed = (await deliveryRows(db)).map((d) => [d.type, d.endpoint_id]);
      expect(owed).to.have.deep.members([
        ["transaction.submitted", all.id],
        ["transaction.included", all.id],
        ["transaction.included", final.id],
      ]);
      expect(owed).to.have.length(3);
    });

    it("announces a Safe request as safe.* events carrying its Safe view", async () => {
      const { repos, db, appId } = store;
      await addEndpoint(repos, appId);
      const { record } = await repos.transactions.create(safeTx(appId));
      await repos.transactions.recordBundle(bundleOf(0), [safeOpOf(record.id)]);
      const submittedView = safeTransactionView((await find(record.id)) as SafeTxRecord);
      await repos.transactions.settle(record.id, failed);
      const failedView = safeTransactionView((await find(record.id)) as SafeTxRecord);
      const bodies = (await eventRows(db)).map((event) => JSON.parse(event.body));
      expect(bodies.map((body) => [body.type, body.data])).to.deep.equal([
        ["safe.submitted", submittedView],
        ["safe.failed", failedView],
      ]);
      expect(failedView).to.deep.include({ txUuid: record.id, status: "failed", error: failed.error });
    });

    it("leaves no event of a change rolled back: a fenced write under a lost lease, a bundle failing midway", async () => {
      const { repos, db, clock, appId } = store;
      await addEndpoint(repos, appId);
      const first = (await repos.transactions.create(walletTx(appId, 1))).record;
      const second = (await repos.transactions.create(walletTx(appId, 2))).record;
      const lease = (await repos.workerLeases.acquire("tx-worker:localhost", holder("a"), 1000, () => false))!;
      clock.advance(1000);
      await repos.workerLeases.acquire("tx-worker:localhost", holder("b"), 1000, () => false);
      const stale = repos.transactions.fenced(lease);
      const lost = await stale.recordBundle(bundleOf(0), [userOpOf(first.id)]).catch((e: unknown) => e);
      expect(lost).to.be.instanceOf(LeaseLostError);
      // The first operation's event is written before the second one throws; the rollback must take it too.
      const broken = { ...userOpOf(second.id), userOp: { ...userOpOf(second.id).userOp, nonce: undefined } };
      const midway = repos.transactions.recordBundle(bundleOf(1), [userOpOf(first.id), broken as never]);
      expect(await midway.catch((e: unknown) => e)).to.be.instanceOf(Error);
      expect(await eventRows(db)).to.deep.equal([]);
      expect(await deliveryRows(db)).to.deep.equal([]);
      expect((await find(first.id)).status).to.equal("queued");
    });
  });
}
