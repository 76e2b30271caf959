import { expect } from "chai";
import { throttled } from "../../../gateway/http/sharedRuns";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("throttled(): one run of an expensive read for many callers", () => {
  it("a hundred concurrent callers cause one run and all get its answer", async () => {
    let runs = 0;
    const read = throttled(async () => {
      runs++;
      await sleep(20);
      return runs;
    }, 1000);
    const answers = await Promise.all(Array.from({ length: 100 }, () => read()));
    expect(runs).to.equal(1);
    expect(new Set(answers)).to.deep.equal(new Set([1]));
  });

  it("never answers a caller from a run that began before it came, and starts runs at least the interval apart", async () => {
    const starts: number[] = [];
    let state = 0;
    const read = throttled(async () => {
      starts.push(performance.now());
      const seen = state;
      await sleep(30);
      return seen;
    }, 100);
    const first = read();
    await sleep(5);
    // The state changes while the first run is under way: a caller coming now must see the change.
    state = 1;
    const [a, b, c] = await Promise.all([first, read(), read()]);
    expect([a, b, c]).to.deep.equal([0, 1, 1]);
    expect(starts).to.have.length(2);
    expect(starts[1]! - starts[0]!).to.be.at.least(99);
  });

  it("a failed run fails its callers only; the next caller gets a new run", async () => {
    let calls = 0;
    const read = throttled(async () => {
      calls++;
      if (calls === 1) throw new Error("node away");
      return "ok";
    }, 10);
    await read().then(
      () => expect.fail("the first run failed"),
      (error: Error) => expect(error.message).to.equal("node away"),
    );
    expect(await read()).to.equal("ok");
  });
});
