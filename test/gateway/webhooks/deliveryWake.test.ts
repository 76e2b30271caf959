import { expect } from "chai";
import { WebhookSettings } from "../../../gateway/config/webhookSettings";
import { openDatabase } from "../../../gateway/storage/database";
import { createRepositories } from "../../../gateway/storage/repositories";
import { startWebhookDelivery } from "../../../gateway/webhooks/deliveryWorker";
import { newWebhookSecret } from "../../../gateway/webhooks/webhookEndpoint";
import type { WebhooksRepository } from "../../../gateway/webhooks/webhooksRepository";
import { capturingLogger } from "../../helpers/capturingLogger";
import { startWebhookReceiver } from "../../helpers/webhookReceiver";
import { testKeyring } from "../storage/builders";
import { included, userOpOf, walletTx } from "../storage/contract/webhookFixtures";

/** The longest poll the settings allow: an event delivered well within it was not found by a poll. */
const POLL_MS = 60_000;
/** How soon an event recorded in the delivering process must arrive (a poll would take up to POLL_MS). */
const WITHIN_MS = 2_000;

/** How long until `check` held, polled every 10 ms; undefined if it did not within `ms`. */
async function msUntil(check: () => boolean, ms: number): Promise<number | undefined> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

/** `repository`, telling `looked` when its first claim (the loop's look at start-up) has answered. */
function watchFirstClaim(repository: WebhooksRepository, looked: () => void): WebhooksRepository {
  const watched: WebhooksRepository = Object.create(repository) as WebhooksRepository;
  watched.claimDue = async (options) => {
    const claims = await repository.claimDue(options);
    looked();
    return claims;
  };
  return watched;
}

describe("webhooks: an event recorded in the delivering process wakes its delivery loop", function () {
  this.timeout(30_000);

  it("a request's events arrive within moments under a one-minute poll, not at the next poll", async () => {
    const database = await openDatabase(":memory:");
    const hooks = await startWebhookReceiver();
    const repos = createRepositories(database.db, () => new Date(), { secrets: testKeyring() });
    const appId = (await repos.apps.create({ name: "acme" })).app.id;
    await repos.webhooks.addEndpoint({ appId, url: hooks.url, events: [], secret: newWebhookSecret() }, 10);
    let looked!: () => void;
    const firstLook = new Promise<void>((resolve) => (looked = resolve));
    const delivery = startWebhookDelivery({
      repository: watchFirstClaim(repos.webhooks, () => looked()),
      settings: WebhookSettings.parse({ allowLoopback: true, pollMs: POLL_MS }),
      clock: () => new Date(),
      logger: capturingLogger([]),
    });
    try {
      // The look at start-up found nothing: the next poll is a minute away.
      await firstLook;
      const { record } = await repos.transactions.create(walletTx(appId));
      await repos.transactions.markSubmitted(userOpOf(record.id));
      const submittedMs = await msUntil(() => hooks.received.length === 1, WITHIN_MS);
      await repos.transactions.settle(record.id, included);
      const includedMs = await msUntil(() => hooks.received.length === 2, WITHIN_MS);

      expect(submittedMs, "transaction.submitted delivered on the wake").to.not.equal(undefined);
      expect(includedMs, "transaction.included delivered on the wake").to.not.equal(undefined);
      expect(hooks.received.map((hook) => hook.event.type)).to.deep.equal([
        "transaction.submitted",
        "transaction.included",
      ]);
    } finally {
      await delivery.stop();
      await hooks.close();
      await database.close();
    }
  });
});
