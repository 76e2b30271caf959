import { expect } from "chai";
import pino from "pino";
import { Loop } from "../../../gateway/bundler/txWorkers";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("transaction worker loop", () => {
  it("a flood of wakes while the node is down does not cut the back-off short (no retry at the request rate)", async () => {
    let steps = 0;
    const loop = new Loop(
      {
        tick: async () => {
          steps++;
          throw new Error("node down");
        },
      },
      50,
      pino({ level: "silent" }),
    );
    // 400 ms of accepted requests, one wake every millisecond or so.
    const until = Date.now() + 400;
    while (Date.now() < until) {
      loop.wake();
      await sleep(1);
    }
    await loop.stop();
    // Back-off of 100, 200, 400 ms after the first failures: a handful of steps, not hundreds.
    expect(steps).to.be.within(2, 5);
  });

  it("a wake while idle steps at once instead of waiting for the poll", async () => {
    let steps = 0;
    const loop = new Loop({ tick: async () => (steps++, false) }, 60_000, pino({ level: "silent" }));
    await sleep(20);
    expect(steps).to.equal(1);
    loop.wake();
    await sleep(20);
    expect(steps).to.equal(2);
    await loop.stop();
  });
});
