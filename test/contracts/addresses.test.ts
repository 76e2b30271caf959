import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther } from "ethers";
import golden from "../vectors/addresses.json";
import { canonicalUserId, parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, factoryImplementation, walletSalt } from "../../gateway/identity/walletAddress";
import { deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { ENTRY_POINT_V07 } from "../../scripts/deployment/entryPoint";
import { KernelAccountFactory__factory } from "../../typechain-types";
import { deployIdwalletFixture } from "../helpers/deployment";
import { startSecondChain } from "../helpers/secondChain";

describe("Wallet addresses", () => {
  it("has at least 30 golden vectors", () => {
    expect(golden.vectors.length).to.be.greaterThanOrEqual(30);
  });

  it("reference deployment still puts the factories where the golden vectors say", async () => {
    const f = await loadFixture(deployIdwalletFixture);
    expect(f.admin.address).to.equal(golden.admin);
    expect(f.deployment.contracts.entryPoint).to.equal(ENTRY_POINT_V07);
    expect(f.deployment.contracts.kernelFactory).to.equal(golden.kernelFactory);
    expect(f.deployment.contracts.baseFactory).to.equal(golden.baseFactory);
    expect(f.deployment.contracts.kernelImplementation).to.equal(factoryImplementation(golden.kernelFactory));
    expect(f.deployment.contracts.baseImplementation).to.equal(factoryImplementation(golden.baseFactory));
  });

  it("TypeScript derivation == golden vectors == the factories' getAddress on chain", async () => {
    const f = await loadFixture(deployIdwalletFixture);
    for (const v of golden.vectors) {
      const userId = parseUserId(v.input);
      expect(canonicalUserId(v.input), v.input).to.equal(v.userId);
      expect(deriveWalletAddress(golden.kernelFactory, "kernel", userId), v.input).to.equal(v.kernel);
      expect(deriveWalletAddress(golden.baseFactory, "base", userId), v.input).to.equal(v.base);
      expect(await f.kernelFactory.getFunction("getAddress")(walletSalt("kernel", userId)), v.input).to.equal(v.kernel);
      expect(await f.baseFactory.getFunction("getAddress")(walletSalt("base", userId)), v.input).to.equal(v.base);
    }
  });

  it("gives different wallets to different ids and account types", () => {
    const kernels = new Set(golden.vectors.map((v) => v.kernel));
    const ids = new Set(golden.vectors.map((v) => v.userId));
    expect(kernels.size).to.equal(ids.size);
    for (const v of golden.vectors) expect(v.kernel).to.not.equal(v.base);
  });

  it("creates each account once: createAccount is idempotent", async () => {
    const f = await loadFixture(deployIdwalletFixture);
    // Each test file uses its own user ids: a fixture's last test leaves its state on the shared chain.
    const userId = parseUserId("github:idempotent");
    const salt = walletSalt("kernel", userId);
    const expected = deriveWalletAddress(golden.kernelFactory, "kernel", userId);
    expect(await f.kernelFactory.createAccount.staticCall(salt)).to.equal(expected);
    await expect(f.kernelFactory.createAccount(salt))
      .to.emit(f.kernelFactory, "AccountCreated")
      .withArgs(expected, salt);
    expect(await f.kernelFactory.createAccount.staticCall(salt)).to.equal(expected);
    await expect(f.kernelFactory.createAccount(salt)).to.not.emit(f.kernelFactory, "AccountCreated");
  });

  it("refuses a factory without a custodian", async () => {
    const factory = await ethers.getContractFactory("KernelAccountFactory");
    const account = await ethers.getContractFactory("KernelAccount");
    await expect(factory.deploy(ENTRY_POINT_V07, ethers.ZeroAddress))
      .to.be.revertedWithCustomError(account, "OwnedAccountInvalidOwner")
      .withArgs(ethers.ZeroAddress);
  });

  it("puts the contracts and a wallet at the same addresses on two fresh chains with different chain ids", async () => {
    const [admin, walletKey, sponsorKey] = await ethers.getSigners();
    const options = {
      admin: admin!.address,
      walletSigners: [walletKey!.address],
      sponsorSigners: [sponsorKey!.address],
      paymasterDeposit: parseEther("1"),
      // Polygon's real minimum (4,000 POL for each of three entities) is more than a test account holds.
      stakePolicy: { coin: "POL", minimumStakeWei: parseEther("1"), unstakeDelaySeconds: 86_400, basis: "test" },
    };
    const providers = [await startSecondChain(137), await startSecondChain(8453)];
    const signers = await Promise.all(providers.map((p) => p.getSigner(admin!.address)));
    const first = await deployIdwallet(signers[0]!, options);
    const second = await deployIdwallet(signers[1]!, options);

    expect(first.chainId).to.equal(137);
    expect(second.chainId).to.equal(8453);
    expect(second.contracts).to.deep.equal(first.contracts);

    const userId = parseUserId("email:alice@example.com");
    const salt = walletSalt("kernel", userId);
    const expected = deriveWalletAddress(first.contracts.kernelFactory, "kernel", userId);
    for (const [i, provider] of providers.entries()) {
      const factory = KernelAccountFactory__factory.connect(first.contracts.kernelFactory, signers[i]);
      await (await factory.createAccount(salt)).wait();
      expect(await provider.getCode(expected)).to.not.equal("0x");
    }

    // A second run finds everything in place and sends nothing.
    const nonceBefore = await providers[1]!.getTransactionCount(admin!.address);
    const again = await deployIdwallet(signers[1]!, options);
    expect(again.contracts).to.deep.equal(first.contracts);
    expect(await providers[1]!.getTransactionCount(admin!.address)).to.equal(nonceBefore);
  });
});
