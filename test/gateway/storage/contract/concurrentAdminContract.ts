import { expect } from "chai";
import { DustOrderStateError } from "../../../../gateway/dust/dustRepository";
import { ProviderTakenError } from "../../../../gateway/identity/providersRepository";
import { TEST_PROVIDER_AUDIENCE, TEST_PROVIDER_ISSUER } from "../../../helpers/providerProofs";
import { type SharedLocation, twoInstances } from "./concurrentAcceptContract";

const jwks = (host: string) => ({
  key: { kind: "jwks" as const, url: `https://${host}/jwks.json` },
  issuer: TEST_PROVIDER_ISSUER,
  audience: TEST_PROVIDER_AUDIENCE,
});

/** Settles every promise: what each one gave, or what it threw. */
const outcomes = <T>(promises: Promise<T>[]) =>
  Promise.all(
    promises.map((p) =>
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    ),
  );

/**
 * Operator and worker writes on two instances at once (the admin CLI beside the service, two workers): each
 * check-then-write holds on both dialects.
 */
export function concurrentAdminContract(dialect: string, location: SharedLocation): void {
  describe(`storage: two instances changing apps, providers and dust orders at once (${dialect})`, () => {
    let instances: Awaited<ReturnType<typeof twoInstances>>;
    beforeEach(async () => {
      instances = await twoInstances(location);
    });
    afterEach(() => instances.close());

    it("two apps racing for one provider name on two instances: one gets it, the other is refused as taken", async () => {
      const { a, b } = instances;
      const apps = [(await a.apps.create({ name: "owner" })).app, (await a.apps.create({ name: "rival" })).app];
      for (let round = 0; round < 5; round++) {
        const name = `acme${round}`;
        const results = await outcomes(
          Array.from({ length: 6 }, (_, i) =>
            (i % 2 === 0 ? a : b).providers.register(apps[i % 2]!.id, name, jwks(`${i}.test`)),
          ),
        );
        const won = results.filter((r) => "value" in r);
        expect(
          won,
          String(results.find((r) => "error" in r && !(r.error instanceof ProviderTakenError))),
        ).to.have.length(1);
        expect(results.every((r) => "value" in r || r.error instanceof ProviderTakenError)).to.equal(true);
      }
    });

    it("secret rotations on two instances at once: each counted, the last one's secret the only one valid", async () => {
      const { a, b } = instances;
      const { app } = await a.apps.create({ name: "acme" });
      const rotated = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).apps.rotateSecret(app.id)),
      );
      const generations = rotated.map((r) => r.app.secretGeneration).sort((x, y) => x - y);
      expect(generations).to.deep.equal(Array.from({ length: 10 }, (_, i) => i + 1));
      const last = rotated.find((r) => r.app.secretGeneration === 10)!;
      const valid = await Promise.all(rotated.map((r) => a.apps.verifySecret(app.clientId, r.clientSecret)));
      expect(valid.filter(Boolean)).to.have.length(1);
      expect(await a.apps.verifySecret(app.clientId, last.clientSecret)).to.not.equal(undefined);
    });

    it("a dust order swept and cancelled on two instances at once ends in one state, the other refused", async () => {
      const { a, b } = instances;
      const token = "0x00000000000000000000000000000000000000aa";
      await a.dust.putToken({ chain: "localhost", address: token, symbol: "DUST", decimals: 6, listing: "sweepable" });
      const order = await a.dust.createOrder({
        chain: "localhost",
        maker: "0x00000000000000000000000000000000000000B0",
        token,
        amount: 5n,
        tx: `0x${"ab".repeat(32)}`,
        createdAt: "2025-01-01T00:00:00.000Z",
      });
      const sweep = {
        tx: `0x${"cd".repeat(32)}`,
        blockNumber: 7,
        ethAmount: 1n,
        usdValue: 0.5,
        ethPrice: 2000,
        at: "2025-01-01T00:01:00.000Z",
      };
      const results = await outcomes([
        a.dust.settleOrder(order.id, sweep),
        b.dust.cancelOrder(order.id),
        b.dust.settleOrder(order.id, sweep),
        a.dust.cancelOrder(order.id),
      ]);
      const done = results.flatMap((r) => ("value" in r ? [r.value] : []));
      expect(done).to.have.length(1);
      expect(results.every((r) => "value" in r || r.error instanceof DustOrderStateError)).to.equal(true);
      expect((await a.dust.findOrder(order.id))?.status).to.equal(done[0]!.status);
    });
  });
}
