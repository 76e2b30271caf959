import { expect } from "chai";
import type { JsonRpcProvider } from "ethers";
import { ethers } from "hardhat";
import { OwnTransactions } from "../../../gateway/relaying/ownTransactions";
import { TestTarget__factory } from "../../../typechain-types";

/**
 * The pre-broadcast check's own-blocks skip: a simulation still holds when the blocks since it hold only bundles of
 * ours. A bundle of ours that reverted is no such ground (the revert may come again), even before it is settled.
 */
describe("OwnTransactions.onlySince: blocks of our own successful transactions only", () => {
  const provider = ethers.provider as unknown as JsonRpcProvider;

  /** A block number, then a transaction of the relayer's mined after it (calling `fail` when `reverts`). */
  async function sent(reverts: boolean): Promise<{ since: number; hash: string }> {
    const [relayer] = await ethers.getSigners();
    const target = await new TestTarget__factory(relayer).deploy();
    await target.waitForDeployment();
    const since = await ethers.provider.getBlockNumber();
    const data = reverts
      ? target.interface.encodeFunctionData("fail", ["no"])
      : target.interface.encodeFunctionData("record", [1]);
    // Mined by hand: with automine Hardhat's node throws at a reverting transaction instead of mining it.
    await ethers.provider.send("evm_setAutomine", [false]);
    try {
      const tx = await relayer!.sendTransaction({ to: await target.getAddress(), data, gasLimit: 200_000 });
      await ethers.provider.send("evm_mine", []);
      const receipt = await ethers.provider.send("eth_getTransactionReceipt", [tx.hash]);
      expect(receipt.status).to.equal(reverts ? "0x0" : "0x1");
      return { since, hash: tx.hash };
    } finally {
      await ethers.provider.send("evm_setAutomine", [true]);
    }
  }

  it("holds over a block of our own bundle that succeeded", async () => {
    const own = new OwnTransactions();
    const { since, hash } = await sent(false);
    own.add(hash, "bundle");
    expect(await own.onlySince(provider, since, ["bundle"])).to.equal(true);
  });

  it("does not hold over our own bundle that reverted, though it is not settled (forgotten) yet", async () => {
    const own = new OwnTransactions();
    const { since, hash } = await sent(true);
    own.add(hash, "bundle");
    expect(await own.onlySince(provider, since, ["bundle"])).to.equal(false);
  });

  it("does not hold over a transaction that is not ours, nor over one of ours of a kind not allowed", async () => {
    const { since, hash } = await sent(false);
    expect(await new OwnTransactions().onlySince(provider, since, ["bundle"])).to.equal(false);
    const own = new OwnTransactions();
    own.add(hash, "safe");
    expect(await own.onlySince(provider, since, ["bundle"])).to.equal(false);
  });
});
