import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits } from "ethers";

const ETH_USD = parseUnits("3000", 8);

async function fixture() {
  const feed = await ethers.deployContract("TestPriceFeed", [8, ETH_USD]);
  const deployedAt = await time.latest();
  return { feed, deployedAt };
}

describe("TestPriceFeed", () => {
  it("describes itself as an AggregatorV3 feed with the constructor's decimals", async () => {
    const { feed } = await loadFixture(fixture);
    expect(await feed.decimals()).to.equal(8n);
    expect(await feed.description()).to.equal("TestPriceFeed");
    expect(await feed.version()).to.equal(1n);
  });

  it("answers the initial answer as round 1, updated at deployment", async () => {
    const { feed, deployedAt } = await loadFixture(fixture);
    expect(await feed.latestRoundData()).to.deep.equal([1n, ETH_USD, BigInt(deployedAt), BigInt(deployedAt), 1n]);
    expect(await feed.getRoundData(1)).to.deep.equal(await feed.latestRoundData());
  });

  it("opens a new round on setAnswer, updated at that block, and keeps the earlier rounds", async () => {
    const { feed, deployedAt } = await loadFixture(fixture);
    const at = deployedAt + 3600;
    await time.setNextBlockTimestamp(at);
    const price = parseUnits("2500.5", 8);
    await expect(feed.setAnswer(price)).to.emit(feed, "AnswerUpdated").withArgs(price, 2n, at);
    expect(await feed.latestRoundData()).to.deep.equal([2n, price, BigInt(at), BigInt(at), 2n]);
    expect(await feed.getRoundData(2)).to.deep.equal([2n, price, BigInt(at), BigInt(at), 2n]);
    expect((await feed.getRoundData(1)).answer).to.equal(ETH_USD);
  });

  it("accepts negative answers, as int256 allows (readers must reject them)", async () => {
    const { feed } = await loadFixture(fixture);
    await feed.setAnswer(-1n);
    expect((await feed.latestRoundData()).answer).to.equal(-1n);
  });

  it("refuses rounds that were never opened", async () => {
    const { feed } = await loadFixture(fixture);
    await expect(feed.getRoundData(0)).to.be.revertedWithCustomError(feed, "TestPriceFeedNoRound").withArgs(0n);
    await expect(feed.getRoundData(2)).to.be.revertedWithCustomError(feed, "TestPriceFeedNoRound").withArgs(2n);
    await feed.setAnswer(1n);
    expect((await feed.getRoundData(2)).answer).to.equal(1n);
  });
});
