import { expect } from "chai";
import { CLOSE_WHEN_DUE_ATTEMPTS, type SettlingRequest, settlementOf } from "../../../gateway/transactions/settlement";

const pending: SettlingRequest = { status: "submitted", attempts: 1, reservedGas: 1_000n, spentGas: 0n };
const later = new Date("2026-01-01T00:00:00Z");
const error = { code: "AA21", message: "x" };

describe("transactions: what recording an outcome changes (settlement)", () => {
  it("never rewrites a final request", () => {
    for (const status of ["included", "failed"] as const) {
      expect(settlementOf({ ...pending, status }, { status: "failed", error })).to.equal(undefined);
    }
  });

  it("settles an included request at its sends' gas and gasUsed, moving its reservation out of pending", () => {
    const change = settlementOf({ ...pending, spentGas: 300n }, { status: "included", gasUsed: 200n, spentGas: 50n });
    expect(change).to.deep.include({ status: "included", settledGas: 550n, spentGas: 350n });
    expect(change!.buckets).to.deep.equal({ pendingGas: -1_000n, settledGas: 550n });
  });

  it("keeps an included request's worst case (or what its sends burned, the larger) when its cost is unknown", () => {
    expect(settlementOf(pending, { status: "included" })).to.deep.include({ settledGas: 1_000n });
    const burned = settlementOf({ ...pending, spentGas: 1_500n }, { status: "included" });
    expect(burned).to.deep.include({ settledGas: 1_500n });
    expect(burned!.buckets).to.deep.equal({ pendingGas: -1_500n, settledGas: 1_500n });
  });

  it("charges a failed request what its sends burned, nothing if it never ran", () => {
    expect(settlementOf(pending, { status: "failed", error })).to.deep.include({ settledGas: 0n });
    expect(settlementOf({ ...pending, spentGas: 70n }, { status: "failed", error })).to.deep.include({
      settledGas: 70n,
    });
  });

  it("grows a requeued request's pending gas only past its reservation", () => {
    const within = settlementOf(pending, { status: "queued", nextAttemptAt: later, spentGas: 400n });
    expect(within).to.deep.include({ spentGas: 400n, buckets: undefined });
    const past = settlementOf(
      { ...pending, spentGas: 800n },
      { status: "queued", nextAttemptAt: later, spentGas: 400n },
    );
    expect(past).to.deep.include({ spentGas: 1_200n, buckets: { pendingGas: 200n, settledGas: 0n } });
  });

  it("counts attempts: a failed build counts, a sent one was counted when sent, an uncharged send is taken back", () => {
    const queued = { status: "queued", nextAttemptAt: later } as const;
    expect(settlementOf({ ...pending, status: "queued" }, queued)).to.deep.include({ attempts: 2 });
    expect(settlementOf(pending, queued)).to.deep.include({ attempts: 1 });
    expect(settlementOf(pending, { ...queued, uncharged: true })).to.deep.include({ attempts: 0 });
    expect(settlementOf({ ...pending, attempts: 0 }, { ...queued, uncharged: true })).to.deep.include({ attempts: 0 });
    expect(settlementOf(pending, { ...queued, closeWhenDue: true })).to.deep.include({
      attempts: CLOSE_WHEN_DUE_ATTEMPTS,
    });
  });
});
