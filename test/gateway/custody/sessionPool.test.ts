import { expect } from "chai";
import { setTimeout as sleep } from "node:timers/promises";
import { SessionPool } from "../../../gateway/custody/pkcs11/sessionPool";

const closed = () => new Error("closed");

describe("custody: the PKCS#11 session pool", () => {
  it("never lends a session to two operations at once, and uses every session", async () => {
    const pool = new SessionPool(["a", "b", "c"]);
    const busy = new Set<string>();
    const used = new Set<string>();
    let most = 0;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        pool.use(async (session) => {
          expect(busy.has(session), `session ${session} lent twice`).to.equal(false);
          busy.add(session);
          used.add(session);
          most = Math.max(most, busy.size);
          await sleep(1 + (i % 3));
          busy.delete(session);
          return i;
        }, closed),
      ),
    );
    expect(results).to.deep.equal(Array.from({ length: 30 }, (_, i) => i));
    expect(most).to.equal(3);
    expect([...used].sort()).to.deep.equal(["a", "b", "c"]);
  });

  it("gives a session back when the operation fails", async () => {
    const pool = new SessionPool(["only"]);
    const failed = await pool
      .use(async () => Promise.reject(new Error("CKR_DEVICE_ERROR")), closed)
      .catch((e: Error) => e);
    expect(failed).to.have.property("message", "CKR_DEVICE_ERROR");
    expect(await pool.use(async (session) => session, closed)).to.equal("only");
  });

  it("drains: waits for running and queued work, then refuses new work", async () => {
    const pool = new SessionPool(["a"]);
    const finished: number[] = [];
    const work = [1, 2, 3].map((n) =>
      pool.use(async () => {
        await sleep(5);
        finished.push(n);
      }, closed),
    );
    const sessions = await pool.drain();
    expect(finished).to.deep.equal([1, 2, 3]);
    expect(sessions).to.deep.equal(["a"]);
    await Promise.all(work);
    const refused = await pool.use(async () => 0, closed).catch((e: Error) => e);
    expect(refused).to.have.property("message", "closed");
  });
});
