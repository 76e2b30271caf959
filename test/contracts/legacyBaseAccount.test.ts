import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { parseEther } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { walletSalt } from "../../gateway/identity/walletAddress";
import { LegacyBaseAccount__factory } from "../../typechain-types";
import { counterfactualWallet, deployIdwalletFixture, deployTestContracts } from "../helpers/deployment";
import { buildUserOp, handleOps, signUserOp } from "../helpers/userOps";

const legacy = LegacyBaseAccount__factory.createInterface();

async function fixture() {
  const base = await deployIdwalletFixture();
  const test = await deployTestContracts();
  const { wallet, initCode } = counterfactualWallet(
    base.deployment.contracts.baseFactory,
    "base",
    "email:alice@example.com",
  );
  const entryPoint = base.deployment.contracts.entryPoint;
  const run = async (callData: string) => {
    const deployed = (await ethers.provider.getCode(wallet)) !== "0x";
    const nonce: bigint = await base.entryPoint.getFunction("getNonce")(wallet, 0);
    const op = buildUserOp({ sender: wallet, nonce, callData, initCode: deployed ? "0x" : initCode });
    return handleOps(
      base.entryPoint,
      [await signUserOp(op, base.walletKey, entryPoint, base.chainId)],
      base.admin.address,
    );
  };
  return { ...base, ...test, wallet, run };
}

describe("LegacyBaseAccount (deprecated `base` type)", () => {
  it("deploys from initCode and runs a batch given as parallel arrays", async () => {
    const f = await loadFixture(fixture);
    await f.token.mint(f.wallet, 100n);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const token = await f.token.getAddress();
    const batch = legacy.encodeFunctionData("executeBatch", [
      [token, f.bob.address],
      [0, parseEther("0.25")],
      [f.token.interface.encodeFunctionData("transfer", [f.alice.address, 40n]), "0x"],
    ]);
    const bobBefore = await ethers.provider.getBalance(f.bob.address);
    await expect(f.run(batch)).to.emit(f.baseFactory, "AccountCreated");
    expect(await f.token.balanceOf(f.alice.address)).to.equal(40n);
    expect((await ethers.provider.getBalance(f.bob.address)) - bobBefore).to.equal(parseEther("0.25"));
    const account = LegacyBaseAccount__factory.connect(f.wallet, ethers.provider);
    expect(await account.owner()).to.equal(f.deployment.contracts.ownerAccount);
    expect(await account.accountId()).to.equal("idwallet.base.2.0.0");
  });

  it("makes a single call and reports its revert reason", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const target = await f.target.getAddress();
    await expect(
      f.run(legacy.encodeFunctionData("execute", [target, 3, f.target.interface.encodeFunctionData("record", [9])])),
    )
      .to.emit(f.target, "Recorded")
      .withArgs(target, f.wallet, 3, 9);
    const failing = legacy.encodeFunctionData("execute", [
      target,
      0,
      f.target.interface.encodeFunctionData("fail", ["no"]),
    ]);
    const reason = f.target.interface.encodeErrorResult("TestTargetFailed", ["no"]);
    await expect(f.run(failing))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.wallet, 1n, reason);
  });

  it("refuses arrays of different lengths", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const batch = legacy.encodeFunctionData("executeBatch", [[f.bob.address, f.alice.address], [0], ["0x", "0x"]]);
    const reason = legacy.encodeErrorResult("LegacyBaseAccountLengthMismatch", [2, 1, 2]);
    await expect(f.run(batch))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.wallet, 0n, reason);
  });

  it("lets only the EntryPoint or itself execute", async () => {
    const f = await loadFixture(fixture);
    await f.baseFactory.createAccount(walletSalt("base", parseUserId("email:alice@example.com")));
    const account = LegacyBaseAccount__factory.connect(f.wallet, f.stranger);
    await expect(account.execute(f.stranger.address, 0, "0x"))
      .to.be.revertedWithCustomError(account, "OwnedAccountUnauthorized")
      .withArgs(f.stranger.address);
  });
});
