import { expect } from "chai";
import { RequestTimeoutError } from "../../../gateway/errors/apiError";
import { RequestDeadline } from "../../../gateway/accept/requestDeadline";

describe("RequestDeadline (a commit either begins before the deadline answers, or never)", () => {
  it("runs a commit in time and marks the request committed, so the deadline no longer answers for it", async () => {
    const deadline = new RequestDeadline(100);
    expect(await deadline.commit(async () => "stored")).to.equal("stored");
    expect(deadline.committed).to.equal(true);
    expect(deadline.expire()).to.equal(false);
    // Further commit points of a committed request (the SMS after its code) still run.
    expect(await deadline.commit(async () => "sent")).to.equal("sent");
  });

  it("marks the request committed before the commit's work has settled: a deadline during the write leaves it be", async () => {
    const deadline = new RequestDeadline(100);
    let finish!: () => void;
    const write = deadline.commit(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(deadline.expire()).to.equal(false);
    finish();
    await write;
  });

  it("once expired, refuses every commit without running it: 503 REQUEST_TIMEOUT", async () => {
    const deadline = new RequestDeadline(100);
    expect(deadline.expire()).to.equal(true);
    let ran = false;
    const refused = await deadline
      .commit(async () => {
        ran = true;
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(ran).to.equal(false);
    expect(refused).to.be.instanceOf(RequestTimeoutError);
    expect([(refused as RequestTimeoutError).status, (refused as RequestTimeoutError).code]).to.deep.equal([
      503,
      "REQUEST_TIMEOUT",
    ]);
    expect(deadline.committed).to.equal(false);
  });
});
