import { expect } from "chai";
import { DustOrderStateError } from "../../../../gateway/dust/dustRepository";
import { type OpenTestDatabase, openTestStore, type TestStore } from "../builders";

const TOKEN = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";
const MAKER = "0x00000000000000000000000000000000000000B0";
const FEED = "0x00000000000000000000000000000000000000F0";
const HASH = `0x${"ab".repeat(32)}`;
const SWEEP = {
  tx: `0x${"cd".repeat(32)}`,
  blockNumber: 2 ** 40,
  ethAmount: 123_456_789_012_345_678_901n,
  // Floats with no short binary form (17 significant digits, a decimal price): PostgreSQL's numeric must give them back.
  usdValue: 0.1 + 0.2,
  ethPrice: 3012.57,
  at: "2025-01-01T00:01:00.000Z",
};

/** What every DustRepository does, on a fresh migrated database per test from `open` (see the settings suite). */
export function dustRepositoryContract(dialect: string, open: OpenTestDatabase): void {
  describe(`storage: dust tokens, prices and orders (${dialect})`, () => {
    let store: TestStore;
    beforeEach(async () => {
      store = await openTestStore(open);
    });
    afterEach(() => store.database.close());
    const order = (maker = MAKER, createdAt = "2025-01-01T00:00:00.000Z", amount = 5n) =>
      store.repos.dust.createOrder({ chain: "localhost", maker, token: TOKEN, amount, tx: HASH, createdAt });

    it("adds a token, updates it in place, lists a chain's tokens by symbol, removes one once", async () => {
      const { dust } = store.repos;
      await dust.putToken({ chain: "localhost", address: TOKEN, symbol: "ZED", decimals: 6, listing: "sweepable" });
      await dust.putToken({ chain: "localhost", address: OTHER, symbol: "ABC", decimals: 18, listing: "sweepable" });
      await dust.putToken({ chain: "localhost", address: TOKEN, symbol: "ZZZ", decimals: 8, listing: "unsupported" });
      await dust.putToken({ chain: "base", address: TOKEN, symbol: "B", decimals: 6, listing: "sweepable" });
      expect(await dust.tokens("localhost")).to.deep.equal([
        { chain: "localhost", address: OTHER, symbol: "ABC", decimals: 18, listing: "sweepable" },
        { chain: "localhost", address: TOKEN, symbol: "ZZZ", decimals: 8, listing: "unsupported" },
      ]);
      expect(await dust.removeToken("localhost", OTHER)).to.equal(true);
      expect(await dust.removeToken("localhost", OTHER)).to.equal(false);
      expect((await dust.tokens("localhost")).map((t) => t.address)).to.deep.equal([TOKEN]);
    });

    it("sets an asset's price source, a table price replacing a feed and back", async () => {
      const { dust } = store.repos;
      await dust.putPrice({ chain: "localhost", asset: TOKEN, usd: 0.25 });
      expect(await dust.prices("localhost")).to.deep.equal([
        { chain: "localhost", asset: TOKEN, usd: 0.25, updatedAt: "2025-01-01T00:00:00.000Z" },
      ]);
      store.clock.advance(60_000);
      await dust.putPrice({ chain: "localhost", asset: TOKEN, feed: FEED });
      expect(await dust.prices("localhost")).to.deep.equal([
        { chain: "localhost", asset: TOKEN, feed: FEED, updatedAt: "2025-01-01T00:01:00.000Z" },
      ]);
      await dust.putPrice({ chain: "localhost", asset: TOKEN, usd: 1e-9 });
      expect(await dust.prices("localhost")).to.deep.include.members([
        { chain: "localhost", asset: TOKEN, usd: 1e-9, updatedAt: "2025-01-01T00:01:00.000Z" },
      ]);
      expect(await dust.prices("base")).to.deep.equal([]);
    });

    it("records an order, its sweep exactly (wei past 2^64, a block past 2^32), and refuses to change it again", async () => {
      await store.repos.dust.putToken({
        chain: "localhost",
        address: TOKEN,
        symbol: "DUST",
        decimals: 6,
        listing: "sweepable",
      });
      const { dust } = store.repos;
      const open = await order(MAKER, "2025-01-01T00:00:00.000Z", 2n ** 70n);
      expect(open).to.deep.include({ status: "open", amount: 2n ** 70n });
      const swept = await dust.settleOrder(open.id, SWEEP);
      expect(swept).to.deep.equal({ ...open, status: "swept", sweep: SWEEP });
      expect(await dust.findOrder(open.id)).to.deep.equal(swept);
      for (const change of [() => dust.settleOrder(open.id, SWEEP), () => dust.cancelOrder(open.id)]) {
        const error = await change().catch((caught: unknown) => caught);
        expect(error).to.be.instanceOf(DustOrderStateError);
      }
      expect(await dust.cancelOrder("no-such-order").catch((caught: unknown) => caught)).to.be.instanceOf(
        DustOrderStateError,
      );
      expect(await dust.findOrder("no-such-order")).to.equal(undefined);
    });

    it("lists orders newest first, open and swept (never cancelled), by status or maker, a page at a time", async () => {
      await store.repos.dust.putToken({
        chain: "localhost",
        address: TOKEN,
        symbol: "DUST",
        decimals: 6,
        listing: "sweepable",
      });
      const { dust } = store.repos;
      const other = "0x00000000000000000000000000000000000000C0";
      const first = await order(MAKER, "2025-01-01T00:00:00.000Z");
      const second = await order(other, "2025-01-01T00:00:01.000Z");
      const third = await order(MAKER, "2025-01-01T00:00:02.000Z");
      const cancelled = await order(MAKER, "2025-01-01T00:00:03.000Z");
      await dust.settleOrder(second.id, SWEEP);
      await dust.cancelOrder(cancelled.id);
      const ids = async (filter: { status?: "open" | "swept"; maker?: string; limit?: number; offset?: number }) =>
        (await dust.orders({ limit: 10, offset: 0, ...filter })).map((o) => o.id);
      expect(await ids({})).to.deep.equal([third.id, second.id, first.id]);
      expect(await ids({ status: "open" })).to.deep.equal([third.id, first.id]);
      expect(await ids({ status: "swept" })).to.deep.equal([second.id]);
      expect(await ids({ maker: MAKER })).to.deep.equal([third.id, first.id]);
      expect(await ids({ limit: 1, offset: 1 })).to.deep.equal([second.id]);
    });
  });
}
