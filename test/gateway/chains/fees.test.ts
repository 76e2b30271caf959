import { expect } from "chai";
import { bumpedFees } from "../../../gateway/chains/fees";

describe("Replacement fees of a stuck bundle", () => {
  const gwei = 1_000_000_000n;

  it("raises both fees by at least the bump, or to the current fees when those are higher", () => {
    const stuck = { maxFeePerGas: 20n * gwei, maxPriorityFeePerGas: 1n * gwei };
    expect(bumpedFees(stuck, { maxFeePerGas: 10n * gwei, maxPriorityFeePerGas: gwei }, 15n)).to.deep.equal({
      maxFeePerGas: 23n * gwei + 1n,
      maxPriorityFeePerGas: (115n * gwei) / 100n + 1n,
    });
    expect(bumpedFees(stuck, { maxFeePerGas: 40n * gwei, maxPriorityFeePerGas: 3n * gwei }, 15n)).to.deep.equal({
      maxFeePerGas: 40n * gwei,
      maxPriorityFeePerGas: 3n * gwei,
    });
  });

  it("stops bumping past three times the current fees, so a long outage cannot compound them", () => {
    const stuck = { maxFeePerGas: 29n * gwei, maxPriorityFeePerGas: gwei };
    expect(bumpedFees(stuck, { maxFeePerGas: 10n * gwei, maxPriorityFeePerGas: gwei }, 15n)).to.equal(undefined);
  });
});
