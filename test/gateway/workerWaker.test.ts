import { expect } from "chai";
import { createPrimaryWaker, handleWakeMessage } from "../../gateway/workerWaker";

describe("waking the primary's worker loops from a cluster worker", () => {
  /** A channel the test completes by hand: each send waits until `flush` reports it written. */
  const channel = () => {
    const sent: unknown[] = [];
    const pending: ((error: Error | null) => void)[] = [];
    let open = true;
    const send = (message: unknown, callback: (error: Error | null) => void) => {
      if (!open) throw new Error("channel closed");
      sent.push(message);
      pending.push(callback);
      return true;
    };
    return {
      sent,
      waker: createPrimaryWaker(send, () => open),
      flush: (error: Error | null = null) => pending.splice(0).forEach((done) => done(error)),
      close: () => (open = false),
    };
  };

  it("sends the chain at once, and folds a flood during the write into one message after it", () => {
    const { sent, waker, flush } = channel();
    waker.wake("localhost");
    expect(sent).to.deep.equal([{ type: "wake", chain: "localhost" }]);
    for (let i = 0; i < 1000; i++) waker.wake("localhost");
    waker.wake("sep");
    expect(sent).to.have.length(2);
    flush();
    // The requests accepted while the first message was written are covered by one sent after them.
    expect(sent).to.deep.equal([
      { type: "wake", chain: "localhost" },
      { type: "wake", chain: "sep" },
      { type: "wake", chain: "localhost" },
    ]);
    flush();
    expect(sent).to.have.length(3);
    waker.wake("localhost");
    expect(sent).to.have.length(4);
  });

  it("drops wakes once the primary is gone, without throwing into the request", () => {
    const { sent, waker, flush, close } = channel();
    waker.wake("localhost");
    waker.wake("localhost");
    close();
    flush(new Error("channel closed"));
    expect(() => waker.wake("localhost")).to.not.throw();
    expect(sent).to.have.length(1);
    expect(() => createPrimaryWaker(undefined, () => false).wake("localhost")).to.not.throw();
  });

  it("in the primary, wakes only a known chain named by a wake message and leaves every other message alone", () => {
    const woken: string[] = [];
    const waker = { wake: (chain: string) => void woken.push(chain) };
    expect(handleWakeMessage({ type: "wake", chain: "localhost" }, waker)).to.equal(true);
    for (const other of [
      { type: "listening", url: "http://127.0.0.1:1", port: 1 },
      "shutdown",
      null,
      42,
      { type: "wake" },
      { type: "wake", chain: "no-such-chain" },
      { type: "wake", chain: { toString: () => "localhost" } },
    ]) {
      expect(handleWakeMessage(other, waker)).to.equal(false);
    }
    expect(woken).to.deep.equal(["localhost"]);
  });
});
