import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { Wallet, getBytes, parseEther } from "ethers";
import { KernelAccount21__factory, KernelAccount__factory } from "../../typechain-types";
import { custodyLeaf, custodyTree, rootOfProof } from "../../gateway/userop/custodyRoot";
import { encodePaymasterAndData, sponsorshipHash } from "../../gateway/userop/sponsorship";
import { userOperationHash } from "../../gateway/userop/packedUserOperation";
import { handleOps, signUserOp, sponsorUserOp } from "../helpers/userOps";
import { callData, custodyBundle, deployKernel21Fixture, kernelWallet, opOf, privateKeyOf } from "../helpers/kernel21";

const kernel = KernelAccount__factory.createInterface();

/** Three custodial wallets on code 2.1: two moved by the admin (one funded), one not deployed yet. */
async function fixture() {
  const f = await deployKernel21Fixture();
  const moved = [kernelWallet(f, "github:k21-alice"), kernelWallet(f, "github:k21-bob")];
  await f.asAdmin(
    f.ownerAccount.interface.encodeFunctionData("upgradeWallets", [
      f.deployment.contracts.kernelFactory,
      moved.map((w) => w.salt),
      await f.k21.getAddress(),
      "0x",
    ]),
  );
  await f.admin.sendTransaction({ to: moved[0]!.wallet, value: parseEther("1") });
  const fresh = kernelWallet(f, "github:k21-carol", await f.creator.getAddress());
  return { ...f, moved, fresh };
}

const pay = (to: string, wei: bigint) => callData(to, wei);

describe("Wallet code 2.1: custodial operations authorized by one custody signature per bundle", () => {
  it("runs a bundle of operations of several wallets, one of them created on 2.1 by the creator, under one root", async () => {
    const f = await loadFixture(fixture);
    const payee = Wallet.createRandom().address;
    const ops = await custodyBundle(f, [
      opOf(f.moved[0]!.wallet, pay(payee, 7n), 1n),
      opOf(f.moved[1]!.wallet, callData(payee, 0n), 2n),
      opOf(f.fresh.wallet, callData(payee, 0n), 3n, f.fresh.initCode),
    ]);
    expect(ops.every((op) => op.signature === "0x")).to.equal(true);
    const receipt = await (await handleOps(f.entryPoint, ops, f.admin.address)).wait();
    const events = receipt!.logs
      .map((log) => f.entryPoint.interface.parseLog(log))
      .filter((e) => e?.name === "UserOperationEvent");
    expect(events.map((e) => e!.args.success)).to.deep.equal([true, true, true]);
    expect(await ethers.provider.getBalance(payee)).to.equal(7n);
    // The wallet created by the operation's initCode runs 2.1 from its first validation, at the frozen address.
    const created = KernelAccount21__factory.connect(f.fresh.wallet, ethers.provider);
    expect(await created.implementation()).to.equal(await f.k21.getAddress());
    expect(await created.accountId()).to.equal("idwallet.kernel.2.1.0");
    expect(await f.kernelFactory.getFunction("getAddress")(f.fresh.salt)).to.equal(f.fresh.wallet);
  });

  it("a thief who swaps one operation's calls keeps the root's signature and proof: the paymaster refuses (AA34)", async () => {
    const f = await loadFixture(fixture);
    const thief = Wallet.createRandom().address;
    const [honest] = await custodyBundle(f, [opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 4n)]);
    const forged = { ...honest!, callData: pay(thief, parseEther("1")) };
    await expect(handleOps(f.entryPoint, [forged], f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA34 signature error");
  });

  it("an app's operation signed the 2.0.0 way (SponsorPaymaster and the wallet key's own signature) is refused (AA24)", async () => {
    const f = await loadFixture(fixture);
    const op = opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 5n);
    const sponsored = await sponsorUserOp(
      op,
      { ...f.custodyTerms(), paymaster: f.deployment.contracts.sponsorPaymaster },
      f.sponsorKey,
      f.chainId,
    );
    const signed = await signUserOp(sponsored, f.walletKey, f.deployment.contracts.entryPoint, f.chainId);
    await expect(handleOps(f.entryPoint, [signed], f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
    // Self-paid with the custody key's signature: refused too; custodial wallets never pay for themselves.
    const selfPaid = await signUserOp(op, f.walletKey, f.deployment.contracts.entryPoint, f.chainId);
    await expect(handleOps(f.entryPoint, [selfPaid], f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
  });

  it("a mempool watcher who adds bytes to a custodial operation's signature field (a new userOpHash) is refused (AA24)", async () => {
    const f = await loadFixture(fixture);
    const [op] = await custodyBundle(f, [opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 6n)]);
    await expect(handleOps(f.entryPoint, [{ ...op!, signature: "0x01" }], f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
  });

  it("a root signed by a key that is not the OwnerAccount's signer is refused (AA34)", async () => {
    const f = await loadFixture(fixture);
    const ops = await custodyBundle(f, [opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 7n)], f.stranger);
    await expect(handleOps(f.entryPoint, ops, f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA34 signature error");
  });

  it("after one removeSigner on the OwnerAccount, the stolen key's operations and EIP-1271 answers fail on chain", async () => {
    const f = await loadFixture(fixture);
    const wallet = KernelAccount21__factory.connect(f.moved[0]!.wallet, ethers.provider);
    const message = ethers.id("a permit the thief signed before the revocation");
    const signature = new ethers.SigningKey(await privateKeyOf(f.walletKey)).sign(
      getBytes(await wallet.replaySafeHash(message)),
    ).serialized;
    expect(await wallet.isValidSignature(message, signature)).to.equal("0x1626ba7e");
    const presigned = await custodyBundle(f, [opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 8n)]);
    await f.asAdmin(f.ownerAccount.interface.encodeFunctionData("removeSigner", [f.walletKey.address]));
    expect(await wallet.isValidSignature(message, signature)).to.equal("0xffffffff");
    await expect(handleOps(f.entryPoint, presigned, f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA34 signature error");
  });

  it("the custody signature binds its window: an operation past its validUntil is refused (AA32)", async () => {
    const f = await loadFixture(fixture);
    const until = (await time.latest()) + 60;
    const ops = await custodyBundle(f, [opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 9n)], f.walletKey, until);
    await time.increaseTo(until + 1);
    await expect(handleOps(f.entryPoint, ops, f.admin.address))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA32 paymaster expired or not due");
  });

  it("a custodial UserOperation cannot change the owner, the code or a signer set (rule 6)", async () => {
    const f = await loadFixture(fixture);
    const wallet = f.moved[0]!.wallet;
    const steal = callData(wallet, 0n, kernel.encodeFunctionData("transferOwnership", [f.stranger.address]));
    const upgrade = callData(wallet, 0n, kernel.encodeFunctionData("upgradeToAndCall", [f.stranger.address, "0x"]));
    // Nor a signer set: the owner account's (its admin is the creator) and, through the creator, the cold key's forward.
    const addSigner = f.ownerAccount.interface.encodeFunctionData("addSigner", [f.stranger.address]);
    const signerSet = callData(await f.ownerAccount.getAddress(), 0n, addSigner);
    const forwarded = callData(
      await f.creator.getAddress(),
      0n,
      f.creator.interface.encodeFunctionData("forward", [addSigner]),
    );
    const ops = await custodyBundle(f, [
      opOf(wallet, steal, 10n),
      opOf(wallet, upgrade, 11n),
      opOf(wallet, signerSet, 12n),
      opOf(wallet, forwarded, 13n),
    ]);
    const receipt = await (await handleOps(f.entryPoint, ops, f.admin.address)).wait();
    const outcomes = receipt!.logs
      .map((log) => f.entryPoint.interface.parseLog(log))
      .filter((e) => e?.name === "UserOperationEvent")
      .map((e) => e!.args.success);
    expect(outcomes).to.deep.equal([false, false, false, false]);
    expect(await f.ownerAccount.isSigner(f.stranger.address)).to.equal(false);
    const account = KernelAccount21__factory.connect(wallet, ethers.provider);
    expect(await account.owner()).to.equal(await f.ownerAccount.getAddress());
    expect(await account.implementation()).to.equal(await f.k21.getAddress());
  });
});

describe("Wallet code 2.1: the Merkle proofs the service computes are the ones the paymaster checks", () => {
  it("every leaf's proof leads to the root, for bundles of 1 to 33 operations", () => {
    for (let n = 1; n <= 33; n += 1) {
      const leaves = Array.from({ length: n }, (_, i) => custodyLeaf(ethers.id(`leaf ${n} ${i}`)));
      const tree = custodyTree(leaves);
      leaves.forEach((leaf, i) => expect(rootOfProof(leaf, tree.proofs[i]!)).to.equal(tree.root));
      expect(Math.max(...tree.proofs.map((p) => p.length))).to.equal(Math.ceil(Math.log2(n)));
    }
  });

  it("the paymaster's getHash and rootDigest equal the service's (one test vector on chain)", async () => {
    const f = await loadFixture(fixture);
    const op = { ...opOf(f.moved[0]!.wallet, pay(f.bob.address, 1n), 12n) };
    const terms = f.custodyTerms(1234);
    const withTerms = { ...op, paymasterAndData: encodePaymasterAndData(terms) };
    expect(await f.custodyPaymaster.getHash(withTerms, 1234, 0)).to.equal(sponsorshipHash(withTerms, terms, f.chainId));
    const [signed] = await custodyBundle(f, [op], f.walletKey, 1234);
    expect(signed!.paymasterAndData.length).to.equal(2 + 2 * (20 + 32 + 12 + 65));
    expect(userOperationHash(signed!, f.deployment.contracts.entryPoint, f.chainId)).to.equal(
      await f.entryPoint.getFunction("getUserOpHash")(signed),
    );
  });
});
