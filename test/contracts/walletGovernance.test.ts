import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { type Signer, keccak256, parseEther, toBeHex, zeroPadValue } from "ethers";

import { KernelAccount__factory, TestKernelAccountV2__factory } from "../../typechain-types";
import { counterfactualWallet, deployIdwalletFixture, deployTestContracts } from "../helpers/deployment";
import { walletRunner } from "../helpers/walletOps";

const CALL = 0;
const DELEGATECALL = 1;
const kernel = KernelAccount__factory.createInterface();
/** ERC-1967 implementation slot. */
const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
/** ERC-7201 slot of OwnedAccount's owner. */
const OWNER_SLOT = "0x63a81ca6a732d95017419e12c9019b5bc15e8c6140f52bbda4339d206101bc00";

async function fixture() {
  const base = await deployIdwalletFixture();
  const test = await deployTestContracts();
  const writer = await ethers.deployContract("TestSlotWriter");
  const v2 = await new TestKernelAccountV2__factory(base.admin).deploy(
    base.deployment.contracts.entryPoint,
    base.deployment.contracts.ownerAccount,
  );
  const first = counterfactualWallet(base.deployment.contracts.kernelFactory, "kernel", "github:governed-alice");
  const second = counterfactualWallet(base.deployment.contracts.kernelFactory, "kernel", "github:governed-bob");
  const context = { ...base, beneficiary: base.admin.address };
  const runFirst = walletRunner(context, first.wallet, first.initCode);
  const runSecond = walletRunner(context, second.wallet, second.initCode);
  await base.kernelFactory.createAccount(first.salt);
  await base.admin.sendTransaction({ to: first.wallet, value: parseEther("1") });
  await test.token.mint(first.wallet, 1000n);
  const account = KernelAccount__factory.connect(first.wallet, ethers.provider);
  /** The admin allows the slot writer's code for custodial delegatecalls (as if it were a reviewed script). */
  const allowWriter = async () =>
    base.ownerAccount.setDelegateCode(keccak256(await ethers.provider.getCode(writer)), true);
  return { ...base, ...test, writer, allowWriter, v2, first, second, runFirst, runSecond, account };
}

/** The revert reason the EntryPoint reports for the wallet's failed call, to match UserOperationRevertReason. */
const unauthorized = (caller: string) => kernel.encodeErrorResult("OwnedAccountUnauthorized", [caller]);
const protectedChanged = kernel.encodeErrorResult("OwnedAccountProtectedStateChanged", []);

describe("Wallet governance: a thief holding the hot wallet key", () => {
  const selfCall = (wallet: string, data: string) => kernel.encodeFunctionData("execute", [wallet, 0, data, CALL]);

  it("cannot hand the wallet to himself by a UserOperation calling transferOwnership", async () => {
    const f = await loadFixture(fixture);
    const thief = f.walletKey;
    const steal = selfCall(f.first.wallet, kernel.encodeFunctionData("transferOwnership", [thief.address]));
    await expect(f.runFirst(steal, thief))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.first.wallet, anyValue, unauthorized(f.first.wallet));
    // Nor as the operation's call data itself (the EntryPoint calling the wallet).
    const direct = kernel.encodeFunctionData("transferOwnership", [thief.address]);
    await expect(f.runFirst(direct, thief))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.first.wallet, anyValue, unauthorized(await f.entryPoint.getAddress()));
    // Nor by calling the wallet from the key's own address.
    await expect(KernelAccount__factory.connect(f.first.wallet, thief).transferOwnership(thief.address))
      .to.be.revertedWithCustomError(f.account, "OwnedAccountUnauthorized")
      .withArgs(thief.address);
    expect(await f.account.owner()).to.equal(await f.ownerAccount.getAddress());
  });

  it("cannot move the wallet to code of his own by a UserOperation calling upgradeToAndCall", async () => {
    const f = await loadFixture(fixture);
    const thief = f.walletKey;
    const implementation = await f.account.implementation();
    const evil = await f.v2.getAddress(); // any UUPS implementation would do; the thief's own is no different
    const upgrade = selfCall(f.first.wallet, kernel.encodeFunctionData("upgradeToAndCall", [evil, "0x"]));
    await expect(f.runFirst(upgrade, thief))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.first.wallet, anyValue, unauthorized(f.first.wallet));
    expect(await f.account.implementation()).to.equal(implementation);
  });

  it("cannot delegatecall code the admin has not allowed (a SELFDESTRUCT, a rollback, planted storage)", async () => {
    const f = await loadFixture(fixture);
    const writer = await f.writer.getAddress();
    const plant = f.writer.interface.encodeFunctionData("writeSlot", [toBeHex(7, 32), toBeHex(42, 32)]);
    const refused = kernel.encodeErrorResult("OwnedAccountDelegateCallNotAllowed", [writer]);
    await expect(f.runFirst(kernel.encodeFunctionData("execute", [writer, 0, plant, DELEGATECALL]), f.walletKey))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.first.wallet, anyValue, refused);
    const batch = kernel.encodeFunctionData("executeBatch", [
      [{ target: writer, value: 0n, data: plant, operation: DELEGATECALL }],
    ]);
    await expect(f.runFirst(batch, f.walletKey))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.first.wallet, anyValue, refused);
    expect(await ethers.provider.getStorage(f.first.wallet, toBeHex(7, 32))).to.equal(toBeHex(0, 32));
  });

  it("cannot use the wallets' implementation as a wallet of its own (and so cannot destroy it)", async () => {
    const f = await loadFixture(fixture);
    const implementation = f.deployment.contracts.kernelImplementation;
    const runImplementation = walletRunner({ ...f, beneficiary: f.admin.address }, implementation, "0x");
    const noop = kernel.encodeFunctionData("execute", [f.walletKey.address, 0, "0x", CALL]);
    await f.admin.sendTransaction({ to: implementation, value: parseEther("1") });
    await expect(runImplementation(noop, f.walletKey))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOpWithRevert")
      .withArgs(0, "AA23 reverted", kernel.encodeErrorResult("UUPSUnauthorizedCallContext", []));
  });

  it("cannot rewrite the owner or implementation slot with a delegatecall, even into allowed code", async () => {
    const f = await loadFixture(fixture);
    await f.allowWriter();
    const thief = f.walletKey;
    const writer = await f.writer.getAddress();
    const ownerWord = zeroPadValue(thief.address, 32);
    for (const [slot, word] of [
      [OWNER_SLOT, ownerWord],
      [IMPLEMENTATION_SLOT, zeroPadValue(writer, 32)],
    ] as const) {
      const write = f.writer.interface.encodeFunctionData("writeSlot", [slot, word]);
      const single = kernel.encodeFunctionData("execute", [writer, 0, write, DELEGATECALL]);
      await expect(f.runFirst(single, thief))
        .to.emit(f.entryPoint, "UserOperationRevertReason")
        .withArgs(anyValue, f.first.wallet, anyValue, protectedChanged);
      const batch = kernel.encodeFunctionData("executeBatch", [
        [
          { target: thief.address, value: 1n, data: "0x", operation: CALL },
          { target: writer, value: 0n, data: write, operation: DELEGATECALL },
        ],
      ]);
      await expect(f.runFirst(batch, thief))
        .to.emit(f.entryPoint, "UserOperationRevertReason")
        .withArgs(anyValue, f.first.wallet, anyValue, protectedChanged);
    }
    // A delegatecall that makes the wallet call itself is a self-call, refused like the others.
    const viaSelf = f.writer.interface.encodeFunctionData("callSelf", [
      kernel.encodeFunctionData("transferOwnership", [thief.address]),
    ]);
    await expect(f.runFirst(kernel.encodeFunctionData("execute", [writer, 0, viaSelf, DELEGATECALL]), thief))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.first.wallet, anyValue, unauthorized(f.first.wallet));
    expect(await f.account.owner()).to.equal(await f.ownerAccount.getAddress());
    expect(await ethers.provider.getStorage(f.first.wallet, OWNER_SLOT)).to.equal(toBeHex(0, 32));
  });

  it("lets code the admin allowed write the wallet's other storage (a migration script keeps working)", async () => {
    const f = await loadFixture(fixture);
    await f.allowWriter();
    const writer = await f.writer.getAddress();
    const slot = toBeHex(7, 32);
    const write = f.writer.interface.encodeFunctionData("writeSlot", [slot, toBeHex(42, 32)]);
    await expect(f.runFirst(kernel.encodeFunctionData("execute", [writer, 0, write, DELEGATECALL]), f.walletKey))
      .to.emit(f.entryPoint, "UserOperationEvent")
      .withArgs(anyValue, f.first.wallet, anyValue, anyValue, true, anyValue, anyValue);
    expect(await ethers.provider.getStorage(f.first.wallet, slot)).to.equal(toBeHex(42, 32));
  });

  it("loses every wallet once the admin rotates his key out; the operator's new key transacts", async () => {
    const f = await loadFixture(fixture);
    const thief = f.walletKey;
    const [, , , , , , newKey] = await ethers.getSigners();
    await f.ownerAccount.addSigner(newKey!.address);
    await f.ownerAccount.removeSigner(thief.address);
    const drain = kernel.encodeFunctionData("execute", [thief.address, parseEther("1"), "0x", CALL]);
    await expect(f.runFirst(drain, thief))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
    // Not deployed yet either: the stolen key is no better at creating a wallet than at using one.
    await f.admin.sendTransaction({ to: f.second.wallet, value: parseEther("1") });
    await expect(f.runSecond(drain, thief))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");

    const payout = kernel.encodeFunctionData("execute", [f.second.wallet, parseEther("0.4"), "0x", CALL]);
    // The wallet pays its own gas here (no paymaster), so only the payee's balance is exact.
    await expect(f.runFirst(payout, newKey as Signer)).to.changeEtherBalance(f.second.wallet, parseEther("0.4"));
  });
});

describe("Wallet governance: what the thief signed off chain", () => {
  it("stops counting once his key is removed: EIP-1271 asks the owner account at check time", async () => {
    const f = await loadFixture(fixture);
    const hash = ethers.id("permit: let the thief spend everything");
    const signature = await f.walletKey.signTypedData(
      { name: "idwallet Kernel", version: "1", verifyingContract: f.first.wallet },
      { KernelMessage: [{ name: "hash", type: "bytes32" }] },
      { hash },
    );
    expect(await f.account.isValidSignature(hash, signature)).to.equal("0x1626ba7e");
    await f.ownerAccount.removeSigner(f.walletKey.address);
    expect(await f.account.isValidSignature(hash, signature)).to.equal("0xffffffff");
  });
});

describe("Wallet upgrades by the owner account's admin", () => {
  it("moves a deployed and a not yet deployed wallet to a second implementation in one transaction", async () => {
    const f = await loadFixture(fixture);
    const v2 = await f.v2.getAddress();
    const ownerAccount = await f.ownerAccount.getAddress();
    const balanceBefore = await ethers.provider.getBalance(f.first.wallet);
    expect(await ethers.provider.getCode(f.second.wallet)).to.equal("0x");

    await expect(
      f.ownerAccount.upgradeWallets(f.deployment.contracts.kernelFactory, [f.first.salt, f.second.salt], v2, "0x"),
    )
      .to.emit(f.ownerAccount, "WalletsUpgraded")
      .withArgs(f.deployment.contracts.kernelFactory, v2, 2);

    for (const wallet of [f.first.wallet, f.second.wallet]) {
      const upgraded = TestKernelAccountV2__factory.connect(wallet, ethers.provider);
      expect(await upgraded.implementation()).to.equal(v2);
      expect(await upgraded.upgradedGreeting()).to.equal("running the second implementation");
      expect(await upgraded.owner()).to.equal(ownerAccount);
    }
    expect(await ethers.provider.getBalance(f.first.wallet)).to.equal(balanceBefore);
    expect(await f.token.balanceOf(f.first.wallet)).to.equal(1000n);

    // It transacts afterwards, signed by the operator's key as before.
    const transfer = kernel.encodeFunctionData("execute", [
      await f.token.getAddress(),
      0,
      f.token.interface.encodeFunctionData("transfer", [f.second.wallet, 250n]),
      CALL,
    ]);
    await f.runFirst(transfer, f.walletKey);
    expect(await f.token.balanceOf(f.second.wallet)).to.equal(250n);
  });

  it("refuses anyone but the admin, and code that is not an upgradeable account", async () => {
    const f = await loadFixture(fixture);
    const v2 = await f.v2.getAddress();
    await expect(
      f.ownerAccount
        .connect(f.walletKey)
        .upgradeWallets(f.deployment.contracts.kernelFactory, [f.first.salt], v2, "0x"),
    )
      .to.be.revertedWithCustomError(f.ownerAccount, "OwnableUnauthorizedAccount")
      .withArgs(f.walletKey.address);
    await expect(
      f.ownerAccount.upgradeWallets(
        f.deployment.contracts.kernelFactory,
        [f.first.salt],
        await f.token.getAddress(),
        "0x",
      ),
    ).to.be.revertedWithCustomError(f.account, "ERC1967InvalidImplementation");
    await expect(KernelAccount__factory.connect(f.first.wallet, f.admin).upgradeToAndCall(v2, "0x"))
      .to.be.revertedWithCustomError(f.account, "OwnedAccountUnauthorized")
      .withArgs(f.admin.address);
  });

  it("leaves a wallet handed to its user's key to that key: the admin cannot upgrade it, the key can", async () => {
    const f = await loadFixture(fixture);
    const v2 = await f.v2.getAddress();
    await f.ownerAccount.transferWalletOwnership(f.deployment.contracts.kernelFactory, f.first.salt, f.alice.address);
    await expect(f.ownerAccount.upgradeWallets(f.deployment.contracts.kernelFactory, [f.first.salt], v2, "0x"))
      .to.be.revertedWithCustomError(f.account, "OwnedAccountUnauthorized")
      .withArgs(await f.ownerAccount.getAddress());
    await expect(KernelAccount__factory.connect(f.first.wallet, f.alice).upgradeToAndCall(v2, "0x"))
      .to.emit(f.account, "Upgraded")
      .withArgs(v2);
    expect(await f.account.owner()).to.equal(f.alice.address);
    // Its own key may delegatecall what it likes: the custodian's list binds only the custodian's wallets.
    const writer = await f.writer.getAddress();
    const write = f.writer.interface.encodeFunctionData("writeSlot", [toBeHex(9, 32), toBeHex(1, 32)]);
    await f.runFirst(kernel.encodeFunctionData("execute", [writer, 0, write, DELEGATECALL]), f.alice);
    expect(await ethers.provider.getStorage(f.first.wallet, toBeHex(9, 32))).to.equal(toBeHex(1, 32));
    // Not even its own key can make the wallet own itself (nobody could ever sign for it again).
    await expect(KernelAccount__factory.connect(f.first.wallet, f.alice).transferOwnership(f.first.wallet))
      .to.be.revertedWithCustomError(f.account, "OwnedAccountInvalidOwner")
      .withArgs(f.first.wallet);
  });
});
