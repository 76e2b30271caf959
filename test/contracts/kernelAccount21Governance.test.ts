import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { Wallet, getBytes, parseEther } from "ethers";
import { KernelAccount21__factory, KernelAccount__factory } from "../../typechain-types";
import { userOperationHash } from "../../gateway/userop/packedUserOperation";
import { deriveWalletAddress } from "../../gateway/identity/walletAddress";
import { parseUserId } from "../../gateway/identity/userId";
import { deployTestContracts } from "../helpers/deployment";
import { handleOps, signUserOp, sponsorUserOp } from "../helpers/userOps";
import { callData, custodyBundle, deployKernel21Fixture, kernelWallet, opOf, privateKeyOf } from "../helpers/kernel21";

/** OpenZeppelin's UUPSUnauthorizedCallContext(): `_checkProxy` refusing a call not made through a proxy. */
const UUPS_UNAUTHORIZED_CALL_CONTEXT = ethers.id("UUPSUnauthorizedCallContext()").slice(0, 10);
/** Where test payments go. */
const PAYEE = Wallet.createRandom().address;
const erc20 = new ethers.Interface(["function approve(address,uint256)", "function transfer(address,uint256)"]);

async function fixture() {
  const f = await deployKernel21Fixture();
  const tokens = await deployTestContracts();
  const upgrade = (salts: string[], implementation: string) =>
    f.asAdmin(
      f.ownerAccount.interface.encodeFunctionData("upgradeWallets", [
        f.deployment.contracts.kernelFactory,
        salts,
        implementation,
        "0x",
      ]),
    );
  const handOver = (salt: string, owner: string) =>
    f.asAdmin(
      f.ownerAccount.interface.encodeFunctionData("transferWalletOwnership", [
        f.deployment.contracts.kernelFactory,
        salt,
        owner,
      ]),
    );
  return { ...f, ...tokens, upgrade, handOver };
}

/** The UserOperationEvent outcomes of a handleOps receipt. */
async function outcomes(f: Awaited<ReturnType<typeof fixture>>, sent: Promise<{ wait(): Promise<unknown> }>) {
  const receipt = (await (await sent).wait()) as { logs: { topics: string[]; data: string }[] };
  return receipt.logs
    .map((log) => f.entryPoint.interface.parseLog(log))
    .filter((e) => e?.name === "UserOperationEvent")
    .map((e) => e!.args.success as boolean);
}

describe("Wallet code 2.1 through the upgrade path", () => {
  it("moves a wallet with funds and pending state forward, back to 2.0.0 and forward again: address, owner, balances, allowance and used nonces stay, and it transacts on each", async () => {
    const f = await loadFixture(fixture);
    const alice = kernelWallet(f, "tel:15551234567");
    // The golden address of a phone id does not depend on any implementation but the first.
    expect(alice.wallet).to.equal(
      deriveWalletAddress(f.deployment.contracts.kernelFactory, "kernel", parseUserId("tel:15551234567")),
    );
    await f.kernelFactory.createAccount(alice.salt);
    await f.admin.sendTransaction({ to: alice.wallet, value: parseEther("1") });
    await f.token.mint(alice.wallet, 1000n);
    const first = await f.kernelFactory.accountImplementation();
    const k21 = await f.k21.getAddress();
    const account = KernelAccount21__factory.connect(alice.wallet, ethers.provider);
    const usedKey = 77n;
    const sponsorTerms = { ...f.custodyTerms(), paymaster: f.deployment.contracts.sponsorPaymaster };
    const send20 = async (key: bigint, data: string) => {
      const op = opOf(alice.wallet, data, key);
      const sponsored = await sponsorUserOp(op, sponsorTerms, f.sponsorKey, f.chainId);
      const signed = await signUserOp(sponsored, f.walletKey, f.deployment.contracts.entryPoint, f.chainId);
      return outcomes(f, handleOps(f.entryPoint, [signed], f.admin.address));
    };
    const send21 = async (key: bigint, data: string) =>
      outcomes(f, handleOps(f.entryPoint, await custodyBundle(f, [opOf(alice.wallet, data, key)]), f.admin.address));
    // On 2.0.0: an approval left pending for a spender, and nonce key 77 used.
    expect(
      await send20(
        usedKey,
        callData(await f.token.getAddress(), 0n, erc20.encodeFunctionData("approve", [f.bob.address, 300n])),
      ),
    ).to.deep.equal([true]);
    const state = async () => ({
      owner: await account.owner(),
      balance: await ethers.provider.getBalance(alice.wallet),
      tokens: await f.token.balanceOf(alice.wallet),
      allowance: await f.token.allowance(alice.wallet, f.bob.address),
      nonce: await f.entryPoint.getFunction("getNonce")(alice.wallet, usedKey),
    });
    const before = await state();

    await f.upgrade([alice.salt], k21);
    expect(await account.implementation()).to.equal(k21);
    expect(await state()).to.deep.equal(before);
    expect(await send21(1n, callData(PAYEE, 1n))).to.deep.equal([true]);

    await f.upgrade([alice.salt], first);
    expect(await account.implementation()).to.equal(first);
    expect(await send20(2n, callData(PAYEE, 1n))).to.deep.equal([true]);
    // The 2.1 way no longer works on 2.0.0 (its wallet checks a signature itself).
    await expect(send21(3n, callData(PAYEE, 1n))).to.be.revertedWithCustomError(f.entryPoint, "FailedOp");

    await f.upgrade([alice.salt], k21);
    expect(await send21(4n, callData(PAYEE, 1n))).to.deep.equal([true]);
    const after = await state();
    expect({ ...after, balance: 0n }).to.deep.equal({ ...before, balance: 0n });
    expect(after.balance).to.equal(before.balance - 3n);
    // A replay of the used nonce key 77 is refused whatever the code: the EntryPoint holds it.
    await expect(send21(usedKey, "0x")).to.be.revertedWithCustomError(f.entryPoint, "FailedOp");
  });

  it("a wallet handed over to an EOA runs its owner's operations (no paymaster) and no longer the custody key's", async () => {
    const f = await loadFixture(fixture);
    const bob = kernelWallet(f, "github:k21-handed");
    await f.upgrade([bob.salt], await f.k21.getAddress());
    await f.handOver(bob.salt, f.alice.address);
    await f.admin.sendTransaction({ to: bob.wallet, value: parseEther("1") });
    const own = await signUserOp(
      opOf(bob.wallet, callData(PAYEE, 5n), 1n),
      f.alice,
      f.deployment.contracts.entryPoint,
      f.chainId,
    );
    expect(await outcomes(f, handleOps(f.entryPoint, [own], f.admin.address))).to.deep.equal([true]);
    await expect(handleOps(f.entryPoint, await custodyBundle(f, [opOf(bob.wallet, "0x", 2n)]), f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
    const stranger = await signUserOp(
      opOf(bob.wallet, "0x", 3n),
      f.stranger,
      f.deployment.contracts.entryPoint,
      f.chainId,
    );
    await expect(handleOps(f.entryPoint, [stranger], f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
  });

  it("a wallet handed over to a contract owner validates through that owner's EIP-1271 answer", async () => {
    const f = await loadFixture(fixture);
    const [owned, owner] = [kernelWallet(f, "github:k21-owned"), kernelWallet(f, "github:k21-owner")];
    await f.upgrade([owned.salt, owner.salt], await f.k21.getAddress());
    await f.handOver(owned.salt, owner.wallet);
    await f.admin.sendTransaction({ to: owned.wallet, value: parseEther("1") });
    const op = opOf(owned.wallet, callData(PAYEE, 9n), 1n);
    const digest = ethers.hashMessage(getBytes(userOperationHash(op, f.deployment.contracts.entryPoint, f.chainId)));
    const ownerWallet = KernelAccount21__factory.connect(owner.wallet, ethers.provider);
    const signature = new ethers.SigningKey(await privateKeyOf(f.walletKey)).sign(
      getBytes(await ownerWallet.replaySafeHash(digest)),
    ).serialized;
    expect(await outcomes(f, handleOps(f.entryPoint, [{ ...op, signature }], f.admin.address))).to.deep.equal([true]);
  });

  it("the implementation itself validates nothing, so it cannot be used as a wallet and destroyed", async () => {
    const f = await loadFixture(fixture);
    const ops = await custodyBundle(f, [opOf(await f.k21.getAddress(), "0x", 1n)]);
    await expect(handleOps(f.entryPoint, ops, f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOpWithRevert")
      .withArgs(0, "AA23 reverted", UUPS_UNAUTHORIZED_CALL_CONTEXT);
  });
});

describe("The KernelAccountCreator: the OwnerAccount's admin, creating wallets on current code", () => {
  it("a stranger cannot forward to the OwnerAccount, change the implementation, or touch the stake", async () => {
    const f = await loadFixture(fixture);
    const creator = f.creator.connect(f.stranger);
    const addSigner = f.ownerAccount.interface.encodeFunctionData("addSigner", [f.stranger.address]);
    await expect(creator.forward(addSigner)).to.be.revertedWithCustomError(creator, "OwnableUnauthorizedAccount");
    await expect(creator.setImplementation(f.k21)).to.be.revertedWithCustomError(creator, "OwnableUnauthorizedAccount");
    await expect(creator.addStake(1, { value: 1n })).to.be.revertedWithCustomError(
      creator,
      "OwnableUnauthorizedAccount",
    );
    await expect(creator.unlockStake()).to.be.revertedWithCustomError(creator, "OwnableUnauthorizedAccount");
    await expect(creator.withdrawStake(f.stranger.address)).to.be.revertedWithCustomError(
      creator,
      "OwnableUnauthorizedAccount",
    );
    // Nor call the OwnerAccount directly: its admin is the creator now.
    await expect(f.ownerAccount.connect(f.stranger).addSigner(f.stranger.address)).to.be.reverted;
    await expect(f.ownerAccount.connect(f.admin).addSigner(f.stranger.address)).to.be.revertedWithCustomError(
      f.ownerAccount,
      "OwnableUnauthorizedAccount",
    );
  });

  it("refuses an implementation that is no UUPS wallet code of this custodian", async () => {
    const f = await loadFixture(fixture);
    const otherCustodian = await new KernelAccount21__factory(f.admin).deploy(
      f.deployment.contracts.entryPoint,
      f.stranger.address,
      f.custodyPaymaster,
    );
    for (const bad of [f.stranger.address, await f.custodyPaymaster.getAddress(), await otherCustodian.getAddress()]) {
      await expect(f.creator.setImplementation(bad))
        .to.be.revertedWithCustomError(f.creator, "KernelAccountCreatorInvalidImplementation")
        .withArgs(bad);
    }
  });

  it("a wallet someone created through the frozen factory first stays on 2.0.0 and is returned as it is", async () => {
    const f = await loadFixture(fixture);
    const early = kernelWallet(f, "github:k21-frontrun");
    await f.kernelFactory.connect(f.stranger).createAccount(early.salt);
    await f.creator.connect(f.stranger).createAccount(early.salt);
    const account = KernelAccount__factory.connect(early.wallet, ethers.provider);
    expect(await account.implementation()).to.equal(await f.kernelFactory.accountImplementation());
    expect(await f.creator.walletAddress(early.salt)).to.equal(early.wallet);
  });

  it("anyone moves a custodial wallet pinned to 2.0.0 on to current code, and nothing else", async () => {
    const f = await loadFixture(fixture);
    const first = await f.kernelFactory.accountImplementation();
    const [pinned, handed] = [kernelWallet(f, "github:k21-pinned"), kernelWallet(f, "github:k21-pinned-handed")];
    // An outsider pins a wallet to the first code through the frozen factory; another is handed to its user there.
    await f.kernelFactory.connect(f.stranger).createAccount(pinned.salt);
    await f.handOver(handed.salt, f.alice.address);
    await f.creator.connect(f.stranger).moveToCurrent(pinned.salt);
    const account = KernelAccount21__factory.connect(pinned.wallet, ethers.provider);
    expect(await account.implementation()).to.equal(await f.k21.getAddress());
    expect(await account.owner()).to.equal(await f.ownerAccount.getAddress());
    for (const [salt, wallet] of [
      [pinned.salt, pinned.wallet], // already current
      [handed.salt, handed.wallet], // its user's now
      [kernelWallet(f, "github:k21-never").salt, kernelWallet(f, "github:k21-never").wallet], // not created
    ]) {
      await expect(f.creator.connect(f.stranger).moveToCurrent(salt!))
        .to.be.revertedWithCustomError(f.creator, "KernelAccountCreatorNothingToMove")
        .withArgs(wallet);
    }
    // A rollback starts new wallets on the first code again: then nobody moves a wallet forward behind the admin.
    const again = kernelWallet(f, "github:k21-rolled-back");
    await f.kernelFactory.connect(f.stranger).createAccount(again.salt);
    await f.creator.setImplementation(first);
    await expect(f.creator.connect(f.stranger).moveToCurrent(again.salt)).to.be.revertedWithCustomError(
      f.creator,
      "KernelAccountCreatorNothingToMove",
    );
  });

  it("the cold key cannot renounce the admin role through the creator, leaving the wallets without a governor", async () => {
    const f = await loadFixture(fixture);
    await expect(f.creator.renounceOwnership()).to.be.revertedWithCustomError(
      f.creator,
      "KernelAccountCreatorCannotRenounce",
    );
    await expect(f.creator.connect(f.stranger).renounceOwnership()).to.be.revertedWithCustomError(
      f.creator,
      "OwnableUnauthorizedAccount",
    );
  });

  it("the cold key moves the OwnerAccount's admin role back to itself through the creator", async () => {
    const f = await loadFixture(fixture);
    await f.asAdmin(f.ownerAccount.interface.encodeFunctionData("transferOwnership", [f.admin.address]));
    await f.ownerAccount.connect(f.admin).acceptOwnership();
    expect(await f.ownerAccount.owner()).to.equal(f.admin.address);
    await f.ownerAccount.connect(f.admin).addSigner(f.bob.address);
    expect(await f.ownerAccount.isSigner(f.bob.address)).to.equal(true);
  });
});
