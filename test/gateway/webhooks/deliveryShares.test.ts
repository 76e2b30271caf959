import { expect } from "chai";
import { chooseWithinShares, type ClaimCandidate } from "../../../gateway/webhooks/deliveryShares";

/** Candidates `ids`, each "<app>/<endpoint>/<n>". */
const candidates = (...ids: string[]): ClaimCandidate[] =>
  ids.map((id) => {
    const [appId, endpoint] = id.split("/");
    return { id, endpointId: `${appId}/${endpoint}`, appId: appId! };
  });

/** Offers `all` in reads of `limit`, past those seen, as the store does; counts the reads. */
function store(all: readonly ClaimCandidate[]) {
  const reads: number[] = [];
  return {
    reads,
    readNext: (limit: number) => async (seen: readonly string[]) => {
      reads.push(seen.length);
      return all.filter((candidate) => !seen.includes(candidate.id)).slice(0, limit);
    },
  };
}

describe("webhooks: the shares of attempts in flight a claim keeps to", () => {
  it("takes, in the order offered, no more than an endpoint's and an app's share, counting those in flight", async () => {
    const offered = store(candidates("a/1/1", "a/1/2", "a/1/3", "a/2/1", "a/2/2", "b/1/1", "b/1/2"));
    const chosen = await chooseWithinShares({
      limit: 5,
      shares: { perEndpoint: 2, perApp: 3 },
      inFlight: [{ endpointId: "a/2", appId: "a", count: 1 }],
      readNext: offered.readNext(5),
    });
    expect(chosen).to.deep.equal(["a/1/1", "a/1/2", "b/1/1", "b/1/2"]);
  });

  it("reads past a hung app's deliveries for at most four rounds", async () => {
    const hung = candidates(...Array.from({ length: 30 }, (_, i) => `a/1/${i}`), "b/1/1");
    const offered = store(hung);
    const chosen = await chooseWithinShares({
      limit: 5,
      shares: { perApp: 0 },
      inFlight: [],
      readNext: offered.readNext(5),
    });
    expect(chosen).to.deep.equal([]);
    expect(offered.reads).to.deep.equal([0, 5, 10, 15]);
  });

  it("takes everything offered, up to the limit, without shares", async () => {
    const offered = store(candidates("a/1/1", "a/1/2", "a/1/3"));
    const chosen = await chooseWithinShares({ limit: 2, shares: {}, inFlight: [], readNext: offered.readNext(2) });
    expect(chosen).to.deep.equal(["a/1/1", "a/1/2"]);
  });
});
