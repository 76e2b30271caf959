import { expect } from "chai";
import { type Isolation, runIsolated } from "../../../gateway/userop/isolateFailures";

/**
 * A node simulated in memory for the bisection alone: a call fails with no answer when it carries a culprit, or
 * when its items together exceed `capacity` (a bundle too big as a whole, though each part is fine).
 */
const node = (culprits: ReadonlySet<number>, options: { capacity?: number; down?: boolean } = {}) => {
  const calls: number[][] = [];
  const isolation: Isolation<number, string> = {
    run: async (group) => {
      calls.push([...group]);
      if (options.down) throw new Error("connect ECONNREFUSED");
      if (group.some((item) => culprits.has(item))) throw new Error("missing revert data");
      if (group.length > (options.capacity ?? Infinity)) throw new Error("out of gas");
      return group.map((item) => `ok ${item}`);
    },
    nodeAnswers: async () => {
      if (options.down) throw new Error("connect ECONNREFUSED");
      return true;
    },
    failedAlone: (item) => `failed ${item}`,
  };
  return { calls, isolation };
};
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("runIsolated (a poison operation fails alone; the node's outage blames nobody)", () => {
  it("one call when nothing fails", async () => {
    const { calls, isolation } = node(new Set());
    expect(await runIsolated(range(8), isolation)).to.deep.equal(range(8).map((i) => `ok ${i}`));
    expect(calls).to.have.length(1);
  });

  it("an attacker's operation in a batch of 64 fails alone, every other one gets its answer, in few calls", async () => {
    const { calls, isolation } = node(new Set([37]));
    const results = await runIsolated(range(64), isolation);
    expect(results).to.deep.equal(range(64).map((i) => (i === 37 ? "failed 37" : `ok ${i}`)));
    // Bisection: two calls per level on the culprit's path, log2(64) levels, plus the first.
    expect(calls.length).to.be.at.most(1 + 2 * 6);
  });

  it("two attackers in one batch fail, and only they", async () => {
    const { isolation } = node(new Set([0, 9]));
    const results = await runIsolated(range(10), isolation);
    expect(results.filter((r) => r.startsWith("failed"))).to.deep.equal(["failed 0", "failed 9"]);
  });

  it("a batch too big as a whole, with no culprit, is answered in parts and blames nobody", async () => {
    const { isolation } = node(new Set(), { capacity: 3 });
    expect(await runIsolated(range(10), isolation)).to.deep.equal(range(10).map((i) => `ok ${i}`));
  });

  it("when the node does not answer even without the operations, throws the node's error and blames nobody", async () => {
    const { calls, isolation } = node(new Set([3]), { down: true });
    let failed = 0;
    const counting: Isolation<number, string> = {
      ...isolation,
      failedAlone: (item, error) => {
        failed++;
        return isolation.failedAlone(item, error);
      },
    };
    const error = await runIsolated(range(16), counting).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).to.equal("connect ECONNREFUSED");
    expect(failed).to.equal(0);
    expect(calls).to.have.length(1);
  });

  it("a single operation that fails while the node answers is failed (no other request to compare with)", async () => {
    const { isolation } = node(new Set([0]));
    expect(await runIsolated([0], isolation)).to.deep.equal(["failed 0"]);
  });
});
