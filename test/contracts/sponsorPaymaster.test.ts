import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther, ZeroAddress } from "ethers";
import { type SponsorshipTerms, encodePaymasterAndData, sponsorshipHash } from "../../gateway/userop/sponsorship";
import { KernelAccount__factory } from "../../typechain-types";
import { counterfactualWallet, deployIdwalletFixture } from "../helpers/deployment";
import { buildUserOp, handleOps, signUserOp, sponsorUserOp } from "../helpers/userOps";

const kernel = KernelAccount__factory.createInterface();

async function fixture() {
  const base = await deployIdwalletFixture();
  const { wallet, initCode } = counterfactualWallet(
    base.deployment.contracts.kernelFactory,
    "kernel",
    "tel:15551234567",
  );
  const entryPointAddress = await base.entryPoint.getAddress();
  const now = await time.latest();
  const terms = (overrides: Partial<SponsorshipTerms> = {}): SponsorshipTerms => ({
    paymaster: base.deployment.contracts.sponsorPaymaster,
    verificationGasLimit: 100_000n,
    postOpGasLimit: 0n,
    validUntil: now + 3600,
    validAfter: 0,
    ...overrides,
  });
  /** A first op for the wallet (deploys it) that sends nothing anywhere. */
  const op = () =>
    buildUserOp({
      sender: wallet,
      nonce: 0n,
      initCode,
      callData: kernel.encodeFunctionData("execute", [base.bob.address, 0, "0x", 0]),
    });
  const submit = async (sponsored: Awaited<ReturnType<typeof sponsorUserOp>>) =>
    handleOps(
      base.entryPoint,
      [await signUserOp(sponsored, base.walletKey, entryPointAddress, base.chainId)],
      base.admin.address,
    );
  return { ...base, wallet, terms, op, submit, now };
}

describe("SponsorPaymaster", () => {
  it("pays for an operation of a wallet holding no native coin", async () => {
    const f = await loadFixture(fixture);
    expect(await ethers.provider.getBalance(f.wallet)).to.equal(0n);
    const depositBefore = await f.paymaster.getDeposit();
    const sponsored = await sponsorUserOp(f.op(), f.terms(), f.sponsorKey, f.chainId);
    await expect(f.submit(sponsored)).to.emit(f.entryPoint, "UserOperationEvent");
    expect(await ethers.provider.getCode(f.wallet)).to.not.equal("0x");
    expect(await ethers.provider.getBalance(f.wallet)).to.equal(0n);
    expect(await f.paymaster.getDeposit()).to.be.lessThan(depositBefore);
  });

  it("computes the same sponsorship hash as the contract", async () => {
    const f = await loadFixture(fixture);
    const terms = f.terms({ validAfter: 17, postOpGasLimit: 5n });
    const unsigned = { ...f.op(), paymasterAndData: encodePaymasterAndData(terms) };
    expect(sponsorshipHash(unsigned, terms, f.chainId)).to.equal(
      await f.paymaster.getHash(unsigned, terms.validUntil, terms.validAfter),
    );
  });

  it("rejects an expired sponsorship (AA32)", async () => {
    const f = await loadFixture(fixture);
    const sponsored = await sponsorUserOp(f.op(), f.terms({ validUntil: f.now - 1 }), f.sponsorKey, f.chainId);
    await expect(f.submit(sponsored))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA32 paymaster expired or not due");
  });

  it("rejects a sponsorship that is not valid yet (AA32)", async () => {
    const f = await loadFixture(fixture);
    const sponsored = await sponsorUserOp(
      f.op(),
      f.terms({ validAfter: f.now + 3600, validUntil: f.now + 7200 }),
      f.sponsorKey,
      f.chainId,
    );
    await expect(f.submit(sponsored))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA32 paymaster expired or not due");
  });

  it("rejects a sponsorship signed by a key that is not a sponsor signer (AA34)", async () => {
    const f = await loadFixture(fixture);
    const sponsored = await sponsorUserOp(f.op(), f.terms(), f.stranger, f.chainId);
    await expect(f.submit(sponsored))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA34 signature error");
  });

  it("rejects an operation changed after it was sponsored (AA34)", async () => {
    const f = await loadFixture(fixture);
    const sponsored = await sponsorUserOp(f.op(), f.terms(), f.sponsorKey, f.chainId);
    const tampered = { ...sponsored, callData: kernel.encodeFunctionData("execute", [f.stranger.address, 1, "0x", 0]) };
    await expect(f.submit(tampered))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA34 signature error");
  });

  it("rejects paymasterAndData of the wrong length (AA33)", async () => {
    const f = await loadFixture(fixture);
    const short = { ...f.op(), paymasterAndData: encodePaymasterAndData(f.terms(), "0x1234") };
    const reason = f.paymaster.interface.encodeErrorResult("SponsorPaymasterInvalidDataLength", [20 + 32 + 12 + 2]);
    await expect(f.submit(short))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOpWithRevert")
      .withArgs(0, "AA33 reverted", reason);
  });

  it("belongs to the admin, who alone manages signers and the deposit", async () => {
    const f = await loadFixture(fixture);
    expect(await f.paymaster.owner()).to.equal(f.admin.address);
    expect(await f.paymaster.isSigner(f.sponsorKey.address)).to.equal(true);

    const asStranger = f.paymaster.connect(f.stranger);
    await expect(asStranger.addSigner(f.stranger.address))
      .to.be.revertedWithCustomError(f.paymaster, "OwnableUnauthorizedAccount")
      .withArgs(f.stranger.address);
    await expect(asStranger.withdrawTo(f.stranger.address, 1n))
      .to.be.revertedWithCustomError(f.paymaster, "OwnableUnauthorizedAccount")
      .withArgs(f.stranger.address);

    await expect(f.paymaster.withdrawTo(f.bob.address, parseEther("1"))).to.changeEtherBalance(f.bob, parseEther("1"));
    expect(await f.paymaster.getDeposit()).to.equal(parseEther("9"));

    await expect(f.paymaster.addSigner(ZeroAddress))
      .to.be.revertedWithCustomError(f.paymaster, "SponsorPaymasterInvalidSigner")
      .withArgs(ZeroAddress);
    await expect(f.paymaster.removeSigner(f.sponsorKey.address))
      .to.emit(f.paymaster, "SignerRemoved")
      .withArgs(f.sponsorKey.address);
    const sponsored = await sponsorUserOp(f.op(), f.terms(), f.sponsorKey, f.chainId);
    await expect(f.submit(sponsored))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA34 signature error");
  });
});
