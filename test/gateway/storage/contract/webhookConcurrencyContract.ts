import { expect } from "chai";
import { recordTestEvent } from "../../../../gateway/webhooks/testEvents";
import { openDatabase, type Database } from "../../../../gateway/storage/database";
import { createRepositories, type Repositories } from "../../../../gateway/storage/repositories";
import { EndpointLimitError } from "../../../../gateway/webhooks/webhooksRepository";
import { manualClock, testKeyring } from "../builders";
import type { SharedLocation } from "./concurrentAcceptContract";
import { CLAIM_MS, testBody } from "./webhookFixtures";

/** Two instances over one database, each its own `openDatabase`, sharing a manual clock and the secrets key. */
async function twoWebhookInstances(location: SharedLocation) {
  const where = await location();
  const databases: Database[] = [await openDatabase(where), await openDatabase(where)];
  const clock = manualClock("2026-11-22T12:00:00.000Z");
  const [a, b] = databases.map((database) =>
    createRepositories(database.db, clock.now, { secrets: testKeyring() }),
  ) as [Repositories, Repositories];
  const close = () => Promise.all(databases.map((database) => database.close()));
  return { a, b, clock, close };
}

/**
 * Two instances registering and claiming at once over one database (PostgreSQL: they really run together there; see
 * concurrentInstances.test.ts for why SQLite is not run here).
 */
export function webhookConcurrencyContract(dialect: string, location: SharedLocation): void {
  describe(`storage: two instances registering and claiming webhooks at once (${dialect})`, () => {
    let instances: Awaited<ReturnType<typeof twoWebhookInstances>>;
    beforeEach(async () => {
      instances = await twoWebhookInstances(location);
    });
    afterEach(() => instances.close());

    it("two registrations at the limit on two instances: one stored, the other refused", async () => {
      const { a, b } = instances;
      for (let round = 0; round < 8; round++) {
        const appId = (await a.apps.create({ name: `acme${round}` })).app.id;
        const add = (repos: Repositories) =>
          repos.webhooks.addEndpoint({ appId, url: "https://a.example.com/", events: [], secret: "whsec_x" }, 3);
        await add(a);
        await add(b);
        const results = await Promise.allSettled([add(a), add(b)]);
        const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
        expect(refused, String(refused.find((e) => !(e instanceof EndpointLimitError)))).to.have.length(1);
        expect(refused[0]).to.be.instanceOf(EndpointLimitError);
        expect(await a.webhooks.listEndpoints(appId)).to.have.length(3);
      }
    });

    it("two instances claiming at once never take the same delivery", async () => {
      const { a, b, clock } = instances;
      const appId = (await a.apps.create({ name: "acme" })).app.id;
      const secret = "whsec_x";
      const endpoint = await a.webhooks.addEndpoint({ appId, url: "https://a.example.com/", events: [], secret }, 1);
      const owed = new Set<string>();
      for (let i = 0; i < 40; i++) owed.add((await recordTestEvent(a.webhooks, endpoint.id, testBody)).deliveryId);
      // Each round after every claim has ended, so all 40 are up for grabs again.
      for (let round = 0; round < 5; round++) {
        const claims = (await Promise.all([a, b].map((r) => r.webhooks.claimDue({ limit: 50, claimMs: CLAIM_MS }))))
          .flat()
          .map((claim) => claim.deliveryId);
        expect(new Set(claims).size).to.equal(claims.length);
        expect(new Set(claims)).to.deep.equal(owed);
        clock.advance(CLAIM_MS);
      }
      // Smaller claims, more claimers: still no delivery twice.
      const small = (await Promise.all([a, b, a, b].map((r) => r.webhooks.claimDue({ limit: 12, claimMs: CLAIM_MS }))))
        .flat()
        .map((claim) => claim.deliveryId);
      expect(new Set(small).size).to.equal(small.length);
      expect(small).to.have.length(40);
    });
  });
}
