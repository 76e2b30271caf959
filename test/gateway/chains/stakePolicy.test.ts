import { expect } from "chai";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseEther } from "ethers";
import { CHAINS } from "../../../gateway/chains/registry";
import {
  ERC7562_MIN_UNSTAKE_DELAY_SECONDS,
  REFERENCE_BUNDLER_MIN_STAKE_WEI,
  STAKE_POLICIES,
  stakePolicyByChainId,
  stakePolicyOf,
} from "../../../gateway/chains/stakePolicy";

describe("Staking policy per chain (ERC-7562 MIN_STAKE_VALUE, MIN_UNSTAKE_DELAY)", () => {
  it("names a policy for every chain of the registry, and no chain the registry does not know", () => {
    expect(CHAINS.filter((c) => !stakePolicyOf(c.name)).map((c) => c.name)).to.deep.equal([]);
    expect(Object.keys(STAKE_POLICIES).sort()).to.deep.equal(CHAINS.map((c) => c.name).sort());
  });

  it("asks at least the reference bundlers' default (one coin) and, off the local chain, ERC-7562's one-day delay", () => {
    for (const chain of CHAINS) {
      const policy = stakePolicyOf(chain.name)!;
      expect(policy.minimumStakeWei, chain.name).to.be.at.least(REFERENCE_BUNDLER_MIN_STAKE_WEI);
      expect(policy.basis, chain.name).to.not.equal("");
      if (chain.type === "local") expect(policy.unstakeDelaySeconds, chain.name).to.be.within(1, 3600);
      else expect(policy.unstakeDelaySeconds, chain.name).to.equal(ERC7562_MIN_UNSTAKE_DELAY_SECONDS);
    }
  });

  it("finds the local chain's policy by Hardhat's and anvil's chain id, and none for a chain id it does not know", () => {
    expect(stakePolicyByChainId(31337n)).to.equal(stakePolicyOf("localhost"));
    expect(stakePolicyByChainId(1)).to.equal(stakePolicyOf("eth"));
    expect(stakePolicyByChainId(123456789)).to.equal(undefined);
    // A name that is a property of every object is no chain.
    expect(stakePolicyOf("constructor")).to.equal(undefined);
  });

  it("is the table docs/contracts.md shows, chain by chain", () => {
    const doc = readFileSync(path.join(__dirname, "..", "..", "..", "docs", "contracts.md"), "utf8");
    const table = doc.split("| Chains ")[1]!.split("\n\n")[0]!.split("\n").slice(2);
    const shown = new Map<string, { stake: string; delay: string }>();
    for (const row of table) {
      const [chains, stake, delay] = row
        .split("|")
        .slice(1)
        .map((cell) => cell.trim());
      for (const [, name] of chains!.matchAll(/`([^`]+)`/g)) shown.set(name!, { stake: stake!, delay: delay! });
    }
    expect([...shown.keys()].sort()).to.deep.equal(CHAINS.map((c) => c.name).sort());
    for (const [name, { stake, delay }] of shown) {
      const policy = stakePolicyOf(name)!;
      const [amount, coin] = stake.split(" ");
      expect(parseEther(amount!), name).to.equal(policy.minimumStakeWei);
      if (coin !== "coin") expect(coin, name).to.equal(policy.coin);
      expect(delay, name).to.match(new RegExp(`^${policy.unstakeDelaySeconds} s `));
    }
  });
});
