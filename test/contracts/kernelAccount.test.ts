import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import { type Signer, getBytes, hashMessage, keccak256, parseEther, ZeroAddress } from "ethers";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { userOperationHash, type PackedUserOperation } from "../../gateway/userop/packedUserOperation";
import { kernelReplaySafeHash } from "../../gateway/identity/kernelMessage";
import { KernelAccount__factory } from "../../typechain-types";
import { counterfactualWallet, deployIdwalletFixture, deployTestContracts } from "../helpers/deployment";
import { buildUserOp } from "../helpers/userOps";
import { walletRunner } from "../helpers/walletOps";

const CALL = 0;
const DELEGATECALL = 1;
const kernel = KernelAccount__factory.createInterface();

async function fixture() {
  const base = await deployIdwalletFixture();
  const test = await deployTestContracts();
  // Custodial wallets delegatecall only into code the owner account's admin allowed.
  await base.ownerAccount.setDelegateCode(keccak256(await ethers.provider.getCode(test.target)), true);
  const { userId, wallet, initCode } = counterfactualWallet(
    base.deployment.contracts.kernelFactory,
    "kernel",
    "github:alice",
  );
  const entryPointAddress = await base.entryPoint.getAddress();
  const nonceOf = (sender: string): Promise<bigint> => base.entryPoint.getFunction("getNonce")(sender, 0);
  const runAs = walletRunner({ ...base, beneficiary: base.admin.address }, wallet, initCode);
  /** Signs (by default with the operator's wallet key) and submits one op for the wallet. */
  const run = (callData: string, signer: Signer = base.walletKey, extra: Partial<PackedUserOperation> = {}) =>
    runAs(callData, signer, extra);
  return { ...base, ...test, userId, wallet, initCode, entryPointAddress, nonceOf, run };
}

describe("KernelAccount through the EntryPoint v0.7", () => {
  it("deploys at the predicted address from initCode and runs a batch in the first operation", async () => {
    const f = await loadFixture(fixture);
    await f.token.mint(f.wallet, 1000n);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const batch = kernel.encodeFunctionData("executeBatch", [
      [
        {
          target: await f.token.getAddress(),
          value: 0,
          data: f.token.interface.encodeFunctionData("transfer", [f.alice.address, 300n]),
          operation: CALL,
        },
        {
          target: await f.token.getAddress(),
          value: 0,
          data: f.token.interface.encodeFunctionData("transfer", [f.bob.address, 200n]),
          operation: CALL,
        },
        {
          target: await f.target.getAddress(),
          value: 5,
          data: f.target.interface.encodeFunctionData("record", [42]),
          operation: CALL,
        },
      ],
    ]);

    await expect(f.run(batch))
      .to.emit(f.kernelFactory, "AccountCreated")
      .withArgs(f.wallet, walletSalt("kernel", f.userId))
      .and.to.emit(f.target, "Recorded")
      .withArgs(await f.target.getAddress(), f.wallet, 5, 42);

    expect(await ethers.provider.getCode(f.wallet)).to.not.equal("0x");
    expect(await f.token.balanceOf(f.alice.address)).to.equal(300n);
    expect(await f.token.balanceOf(f.bob.address)).to.equal(200n);
    expect(await f.token.balanceOf(f.wallet)).to.equal(500n);
    const account = KernelAccount__factory.connect(f.wallet, ethers.provider);
    expect(await account.owner()).to.equal(await f.ownerAccount.getAddress());
    expect(await account.entryPoint()).to.equal(f.entryPointAddress);
  });

  it("runs a delegatecall in the account's own context", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const call = kernel.encodeFunctionData("execute", [
      await f.target.getAddress(),
      0,
      f.target.interface.encodeFunctionData("record", [7]),
      DELEGATECALL,
    ]);
    const receipt = await (await f.run(call)).wait();
    const recorded = receipt!.logs
      .filter((log) => log.address === f.wallet)
      .map((log) => f.target.interface.parseLog(log))
      .find((parsed) => parsed?.name === "Recorded");
    expect(recorded?.args.self).to.equal(f.wallet);
    expect(recorded?.args.caller).to.equal(f.entryPointAddress);
    expect(recorded?.args.number).to.equal(7n);
  });

  it("transfers native coin", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("2") });
    const before = await ethers.provider.getBalance(f.bob.address);
    await f.run(kernel.encodeFunctionData("execute", [f.bob.address, parseEther("1"), "0x", CALL]));
    expect((await ethers.provider.getBalance(f.bob.address)) - before).to.equal(parseEther("1"));
  });

  it("reports an inner revert with its reason and still uses the nonce", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    await f.run(kernel.encodeFunctionData("execute", [f.bob.address, 0, "0x", CALL]));
    const failing = kernel.encodeFunctionData("execute", [
      await f.target.getAddress(),
      0,
      f.target.interface.encodeFunctionData("fail", ["boom"]),
      CALL,
    ]);
    const reason = f.target.interface.encodeErrorResult("TestTargetFailed", ["boom"]);
    await expect(f.run(failing))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.wallet, 1n, reason);
    expect(await f.nonceOf(f.wallet)).to.equal(2n);
  });

  it("names the failing call of a batch", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const targetAddress = await f.target.getAddress();
    const batch = kernel.encodeFunctionData("executeBatch", [
      [
        {
          target: targetAddress,
          value: 0,
          data: f.target.interface.encodeFunctionData("record", [1]),
          operation: CALL,
        },
        {
          target: targetAddress,
          value: 0,
          data: f.target.interface.encodeFunctionData("fail", ["second"]),
          operation: CALL,
        },
      ],
    ]);
    const inner = f.target.interface.encodeErrorResult("TestTargetFailed", ["second"]);
    const reason = kernel.encodeErrorResult("KernelAccountBatchCallFailed", [1, inner]);
    await expect(f.run(batch))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.wallet, 0n, reason);
  });

  it("rejects an operation signed by a key that is not the owner's (AA24)", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    await expect(f.run(kernel.encodeFunctionData("execute", [f.bob.address, 0, "0x", CALL]), f.stranger))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
  });

  it("lets only the EntryPoint or the account itself execute", async () => {
    const f = await loadFixture(fixture);
    await f.kernelFactory.createAccount(walletSalt("kernel", f.userId));
    const account = KernelAccount__factory.connect(f.wallet, f.stranger);
    await expect(account.execute(f.stranger.address, 0, "0x", CALL))
      .to.be.revertedWithCustomError(account, "OwnedAccountUnauthorized")
      .withArgs(f.stranger.address);
    await expect(account.executeBatch([]))
      .to.be.revertedWithCustomError(account, "OwnedAccountUnauthorized")
      .withArgs(f.stranger.address);
    await expect(account.transferOwnership(f.stranger.address))
      .to.be.revertedWithCustomError(account, "OwnedAccountUnauthorized")
      .withArgs(f.stranger.address);
    await expect(account.upgradeToAndCall(f.stranger.address, "0x"))
      .to.be.revertedWithCustomError(account, "OwnedAccountUnauthorized")
      .withArgs(f.stranger.address);
  });

  it("refuses native coin in a delegatecall", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const call = kernel.encodeFunctionData("execute", [f.bob.address, 1, "0x", DELEGATECALL]);
    const reason = kernel.encodeErrorResult("KernelAccountValueInDelegateCall", [1]);
    await expect(f.run(call))
      .to.emit(f.entryPoint, "UserOperationRevertReason")
      .withArgs(anyValue, f.wallet, 0n, reason);
  });

  it("is handed to the user's key by the owner account's admin; that key then governs it alone", async () => {
    const f = await loadFixture(fixture);
    await f.kernelFactory.createAccount(walletSalt("kernel", f.userId));
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const account = KernelAccount__factory.connect(f.wallet, ethers.provider);
    await expect(
      f.ownerAccount.transferWalletOwnership(
        f.deployment.contracts.kernelFactory,
        walletSalt("kernel", f.userId),
        f.alice.address,
      ),
    )
      .to.emit(account, "OwnershipTransferred")
      .withArgs(await f.ownerAccount.getAddress(), f.alice.address);
    expect(await account.owner()).to.equal(f.alice.address);

    const noop = kernel.encodeFunctionData("execute", [f.bob.address, 0, "0x", CALL]);
    await expect(f.run(noop, f.walletKey))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
    await expect(f.run(noop, f.alice)).to.emit(f.entryPoint, "UserOperationEvent");

    // The custodian no longer governs it; its own key does, by a UserOperation calling itself.
    await expect(
      f.ownerAccount.transferWalletOwnership(
        f.deployment.contracts.kernelFactory,
        walletSalt("kernel", f.userId),
        f.stranger.address,
      ),
    )
      .to.be.revertedWithCustomError(account, "OwnedAccountUnauthorized")
      .withArgs(await f.ownerAccount.getAddress());
    const rotate = kernel.encodeFunctionData("execute", [
      f.wallet,
      0,
      kernel.encodeFunctionData("transferOwnership", [f.bob.address]),
      CALL,
    ]);
    await expect(f.run(rotate, f.alice))
      .to.emit(account, "OwnershipTransferred")
      .withArgs(f.alice.address, f.bob.address);
    expect(await account.owner()).to.equal(f.bob.address);
    await expect(f.run(noop, f.alice))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
  });

  it("stops accepting a wallet key the owner account removed, and accepts its replacement", async () => {
    const f = await loadFixture(fixture);
    await f.admin.sendTransaction({ to: f.wallet, value: parseEther("1") });
    const noop = kernel.encodeFunctionData("execute", [f.bob.address, 0, "0x", CALL]);
    await expect(f.ownerAccount.addSigner(f.bob.address))
      .to.emit(f.ownerAccount, "SignerAdded")
      .withArgs(f.bob.address);
    await expect(f.ownerAccount.removeSigner(f.walletKey.address))
      .to.emit(f.ownerAccount, "SignerRemoved")
      .withArgs(f.walletKey.address);
    await expect(f.run(noop, f.walletKey))
      .to.be.revertedWithCustomError(f.entryPoint, "FailedOp")
      .withArgs(0, "AA24 signature error");
    await expect(f.run(noop, f.bob)).to.emit(f.entryPoint, "UserOperationEvent");
  });

  it("computes the same userOpHash as the EntryPoint", async () => {
    const f = await loadFixture(fixture);
    const op = buildUserOp({ sender: f.wallet, nonce: 5n, callData: "0x1234", initCode: f.initCode });
    expect(userOperationHash(op, f.entryPointAddress, f.chainId)).to.equal(
      await f.entryPoint.getFunction("getUserOpHash")(op),
    );
  });

  describe("EIP-1271", () => {
    async function deployedFixture() {
      const f = await fixture();
      await f.kernelFactory.createAccount(walletSalt("kernel", f.userId));
      const account = KernelAccount__factory.connect(f.wallet, ethers.provider);
      return { ...f, account };
    }
    const MAGIC = "0x1626ba7e";
    const hash = ethers.id("a message an app wants signed");
    const signFor = (account: string, signer: Signer) =>
      signer.signTypedData(
        { name: "idwallet Kernel", version: "1", verifyingContract: account },
        { KernelMessage: [{ name: "hash", type: "bytes32" }] },
        { hash },
      );

    it("wraps the hash exactly as the TypeScript side does", async () => {
      const f = await loadFixture(deployedFixture);
      expect(await f.account.replaySafeHash(hash)).to.equal(kernelReplaySafeHash(f.wallet, hash));
      const domain = await f.account.eip712Domain();
      expect(domain.fields).to.equal("0x0b");
      expect(domain.verifyingContract).to.equal(f.wallet);
      expect(domain.chainId).to.equal(0n);
    });

    it("returns the magic value for the owner's signature and not for others", async () => {
      const f = await loadFixture(deployedFixture);
      expect(await f.account.isValidSignature(hash, await signFor(f.wallet, f.walletKey))).to.equal(MAGIC);
      expect(await f.account.isValidSignature(hash, await signFor(f.wallet, f.stranger))).to.equal("0xffffffff");
      expect(await f.account.isValidSignature(ethers.id("another"), await signFor(f.wallet, f.walletKey))).to.equal(
        "0xffffffff",
      );
      // A signature of the bare hash (no wrapping) is refused: it would be valid for every wallet.
      const unwrapped = await f.walletKey.signMessage(getBytes(hash));
      expect(await f.account.isValidSignature(hash, unwrapped)).to.equal("0xffffffff");
      expect(await f.account.isValidSignature(hash, "0x1234")).to.equal("0xffffffff");
    });

    it("does not let one wallet's signature pass for another wallet of the same owner", async () => {
      const f = await loadFixture(deployedFixture);
      const other = parseUserId("github:bob");
      await f.kernelFactory.createAccount(walletSalt("kernel", other));
      const otherWallet = deriveWalletAddress(f.deployment.contracts.kernelFactory, "kernel", other);
      const forAlice = await signFor(f.wallet, f.walletKey);
      const bobAccount = KernelAccount__factory.connect(otherWallet, ethers.provider);
      expect(await bobAccount.isValidSignature(hash, forAlice)).to.equal("0xffffffff");
    });
  });

  it("accepts ERC-721 and ERC-1155 safe transfers and announces its interfaces", async () => {
    const f = await loadFixture(fixture);
    await f.kernelFactory.createAccount(walletSalt("kernel", f.userId));
    await f.nft.mint(f.wallet, 1);
    await f.multi.mint(f.wallet, 7, 3);
    expect(await f.nft.ownerOf(1)).to.equal(f.wallet);
    expect(await f.multi.balanceOf(f.wallet, 7)).to.equal(3n);
    const account = KernelAccount__factory.connect(f.wallet, ethers.provider);
    for (const id of ["0x01ffc9a7", "0x150b7a02", "0x4e2312e0", "0x19822f7c"]) {
      expect(await account.supportsInterface(id), id).to.equal(true);
    }
    expect(await account.supportsInterface("0xffffffff")).to.equal(false);
    expect(await account.accountId()).to.equal("idwallet.kernel.2.0.0");
  });

  it("owner account refuses bad signer changes and non-admin callers", async () => {
    const f = await loadFixture(fixture);
    await expect(f.ownerAccount.addSigner(ZeroAddress))
      .to.be.revertedWithCustomError(f.ownerAccount, "OwnerAccountInvalidSigner")
      .withArgs(ZeroAddress);
    await expect(f.ownerAccount.addSigner(f.walletKey.address))
      .to.be.revertedWithCustomError(f.ownerAccount, "OwnerAccountInvalidSigner")
      .withArgs(f.walletKey.address);
    await expect(f.ownerAccount.removeSigner(f.bob.address))
      .to.be.revertedWithCustomError(f.ownerAccount, "OwnerAccountInvalidSigner")
      .withArgs(f.bob.address);
    await expect(f.ownerAccount.connect(f.stranger).addSigner(f.stranger.address))
      .to.be.revertedWithCustomError(f.ownerAccount, "OwnableUnauthorizedAccount")
      .withArgs(f.stranger.address);
    const message = getBytes(ethers.id("message"));
    const digest = hashMessage(message);
    expect(await f.ownerAccount.isValidSignature(digest, await f.walletKey.signMessage(message))).to.equal(
      "0x1626ba7e",
    );
    expect(await f.ownerAccount.isValidSignature(digest, await f.stranger.signMessage(message))).to.equal("0xffffffff");
  });
});
