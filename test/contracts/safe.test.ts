import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-toolbox/network-helpers";
import { ContractFactory, Wallet, ZeroAddress, id, parseEther, zeroPadValue, type Signer } from "ethers";
import type { KeySigner } from "../../gateway/custody/keySigner";
import { testKeySigner } from "../helpers/keySigners";
import { SAFE_ARTIFACTS } from "../../gateway/safe/encoding/safeArtifacts";
import { createProxyCallData, predictSafeAddress, safeInitializer } from "../../gateway/safe/encoding/safeCreation";
import {
  encodeExecTransaction,
  safeTxHash,
  signSafeTx,
  type SafeCall,
} from "../../gateway/safe/encoding/safeTransaction";
import { disperseCall, disperseNftCall, encodeMultiSend, transferCall } from "../../gateway/safe/encoding/payouts";
import { deployTestContracts } from "../helpers/deployment";

// FallbackManager.sol 1.5.0: FALLBACK_HANDLER_STORAGE_SLOT.
const FALLBACK_HANDLER_SLOT = id("fallback_manager.handler.address");
const SALT_NONCE = 7n;

async function deployArtifact(name: keyof typeof SAFE_ARTIFACTS, signer: Signer) {
  const { abi, bytecode } = SAFE_ARTIFACTS[name];
  const contract = await new ContractFactory(abi, bytecode, signer).deploy();
  return contract.waitForDeployment();
}

async function fixture() {
  const [relayer, funder, alice, bob, carol] = await ethers.getSigners();
  if (!relayer || !funder || !alice || !bob || !carol) throw new Error("Hardhat provides at least five accounts");
  const [singleton, factory, handler, multiSend] = await Promise.all([
    deployArtifact("safe", relayer),
    deployArtifact("safeProxyFactory", relayer),
    deployArtifact("compatibilityFallbackHandler", relayer),
    deployArtifact("multiSendCallOnly", relayer),
  ]);
  const tokens = await deployTestContracts();
  const [singletonAddress, factoryAddress, handlerAddress, multiSendAddress] = await Promise.all([
    singleton.getAddress(),
    factory.getAddress(),
    handler.getAddress(),
    multiSend.getAddress(),
  ]);

  const owner = testKeySigner(Wallet.createRandom().privateKey);
  const coOwner = testKeySigner(Wallet.createRandom().privateKey);
  const owners = [owner.address, coOwner.address];
  const initializer = safeInitializer(owners, handlerAddress);
  const safeAddress = predictSafeAddress(factoryAddress, singletonAddress, initializer, SALT_NONCE);
  // The relayer, not an owner, sends every transaction: owners only sign.
  const deployTx = await relayer.sendTransaction({
    to: factoryAddress,
    data: createProxyCallData(singletonAddress, initializer, SALT_NONCE),
  });
  const safe = new ethers.Contract(safeAddress, SAFE_ARTIFACTS.safe.abi, relayer);
  const { chainId } = await ethers.provider.getNetwork();

  const nonce = (): Promise<bigint> => safe.getFunction("nonce")();
  /** Signs `call` with `signer` at the Safe's current nonce and has the relayer execute it. */
  const exec = async (call: SafeCall, signer: KeySigner = owner) => {
    const signature = await signSafeTx(signer, safeTxHash(chainId, safeAddress, call, await nonce()), {
      purpose: "safeTransaction",
    });
    return relayer.sendTransaction({ to: safeAddress, data: encodeExecTransaction(call, signature) });
  };

  return {
    ...tokens,
    relayer,
    funder,
    alice,
    bob,
    carol,
    singleton,
    factory,
    singletonAddress,
    factoryAddress,
    handlerAddress,
    multiSendAddress,
    owner,
    coOwner,
    owners,
    initializer,
    deployTx,
    safe,
    safeAddress,
    chainId,
    nonce,
    exec,
  };
}

describe("Safe 1.5.0 encoding", () => {
  it("deploys the Safe at the predicted address with the owners, threshold 1 and the fallback handler", async () => {
    const f = await loadFixture(fixture);

    await expect(f.deployTx).to.emit(f.factory, "ProxyCreation").withArgs(f.safeAddress, f.singletonAddress);
    expect(await ethers.provider.getCode(f.safeAddress)).to.not.equal("0x");
    expect(await f.safe.getFunction("VERSION")()).to.equal("1.5.0");
    expect(await f.safe.getFunction("getOwners")()).to.deep.equal(f.owners);
    expect(await f.safe.getFunction("getThreshold")()).to.equal(1n);
    expect(await ethers.provider.getStorage(f.safeAddress, FALLBACK_HANDLER_SLOT)).to.equal(
      zeroPadValue(f.handlerAddress.toLowerCase(), 32),
    );
    // The salt nonce is part of the address: another nonce gives another, still predicted, address.
    const other = await f.factory
      .getFunction("createProxyWithNonce")
      .staticCall(f.singletonAddress, f.initializer, SALT_NONCE + 1n);
    expect(other).to.equal(predictSafeAddress(f.factoryAddress, f.singletonAddress, f.initializer, SALT_NONCE + 1n));
    expect(other).to.not.equal(f.safeAddress);
  });

  it("computes the SafeTx hash the Safe computes", async () => {
    const f = await loadFixture(fixture);
    const call: SafeCall = { to: f.alice.address, value: 12_345n, data: "0xdeadbeef0102", operation: 1 };
    const nonce = 42n;

    const onChain = await f.safe
      .getFunction("getTransactionHash")
      .staticCall(call.to, call.value, call.data, call.operation, 0, 0, 0, ZeroAddress, ZeroAddress, nonce);
    expect(safeTxHash(f.chainId, f.safeAddress, call, nonce)).to.equal(onChain);
    expect(safeTxHash(f.chainId, f.safeAddress, call, nonce + 1n)).to.not.equal(onChain);
  });

  it("executes an owner-signed native and ERC-20 transfer sent by a relayer, and refuses a non-owner's signature", async () => {
    const f = await loadFixture(fixture);
    expect(f.owners).to.not.include(f.relayer.address);
    await f.funder.sendTransaction({ to: f.safeAddress, value: parseEther("1") });
    await f.token.mint(f.safeAddress, 1_000n);

    const native = transferCall({ token: undefined, to: f.alice.address, amount: parseEther("0.25") });
    const hash = safeTxHash(f.chainId, f.safeAddress, native, 0n);
    const nativeTx = await f.exec(native);
    await expect(nativeTx).to.emit(f.safe, "ExecutionSuccess").withArgs(hash, 0n);
    await expect(nativeTx).to.changeEtherBalances([f.safeAddress, f.alice], [-parseEther("0.25"), parseEther("0.25")]);
    expect(await f.nonce()).to.equal(1n);

    const erc20 = transferCall({ token: await f.token.getAddress(), to: f.bob.address, amount: 300n });
    await expect(f.exec(erc20, f.coOwner)).to.changeTokenBalances(f.token, [f.safeAddress, f.bob], [-300n, 300n]);
    expect(await f.nonce()).to.equal(2n);

    const stranger = testKeySigner(Wallet.createRandom().privateKey);
    await expect(f.exec(erc20, stranger)).to.be.revertedWith("GS026");
    // Replaying an executed transaction: its signature was over an earlier nonce, so it recovers no owner.
    await expect(f.relayer.sendTransaction({ to: f.safeAddress, data: nativeTx.data })).to.be.revertedWith("GS026");
    expect(await f.nonce()).to.equal(2n);
  });

  it("disperses native coin and an ERC-20 to three recipients in one Safe transaction", async () => {
    const f = await loadFixture(fixture);
    await f.funder.sendTransaction({ to: f.safeAddress, value: parseEther("1") });
    await f.token.mint(f.safeAddress, 1_000n);
    const token = await f.token.getAddress();

    const tx = await f.exec(
      disperseCall(f.multiSendAddress, [
        { token: undefined, to: f.alice.address, amount: 100n },
        { token, to: f.alice.address, amount: 10n },
        { token: undefined, to: f.bob.address, amount: 200n },
        { token, to: f.carol.address, amount: 30n },
        { token: undefined, to: f.carol.address, amount: 300n },
      ]),
    );

    await expect(tx).to.changeEtherBalances([f.safeAddress, f.alice, f.bob, f.carol], [-600n, 100n, 200n, 300n]);
    await expect(tx).to.changeTokenBalances(f.token, [f.safeAddress, f.alice, f.bob, f.carol], [-40n, 10n, 0n, 30n]);
    expect(await f.nonce()).to.equal(1n);
  });

  it("disperses ERC-721 and ERC-1155 tokens to two recipients in one Safe transaction", async () => {
    const f = await loadFixture(fixture);
    // Safe mints reach the Safe only through the fallback handler's onERC721Received/onERC1155Received.
    await f.nft.mint(f.safeAddress, 1n);
    await f.nft.mint(f.safeAddress, 2n);
    await f.multi.mint(f.safeAddress, 7n, 10n);
    const [nft, multi] = await Promise.all([f.nft.getAddress(), f.multi.getAddress()]);

    await f.exec(
      disperseNftCall(f.multiSendAddress, f.safeAddress, [
        { standard: "erc721", token: nft, to: f.alice.address, tokenId: 1n, amount: 1n },
        { standard: "erc721", token: nft, to: f.bob.address, tokenId: 2n, amount: 1n },
        { standard: "erc1155", token: multi, to: f.alice.address, tokenId: 7n, amount: 4n },
        { standard: "erc1155", token: multi, to: f.bob.address, tokenId: 7n, amount: 5n },
      ]),
    );

    expect(await f.nft.ownerOf(1n)).to.equal(f.alice.address);
    expect(await f.nft.ownerOf(2n)).to.equal(f.bob.address);
    expect(await f.multi.balanceOf(f.alice.address, 7n)).to.equal(4n);
    expect(await f.multi.balanceOf(f.bob.address, 7n)).to.equal(5n);
    expect(await f.multi.balanceOf(f.safeAddress, 7n)).to.equal(1n);
  });

  it("reverts the whole Safe transaction, nonce unspent, when an inner transfer fails", async () => {
    const f = await loadFixture(fixture);
    await f.funder.sendTransaction({ to: f.safeAddress, value: parseEther("1") });
    await f.token.mint(f.safeAddress, 100n);
    const token = await f.token.getAddress();

    // Safe 1.5.0 with safeTxGas 0 and gasPrice 0 re-raises the inner revert data (1.4.1 said GS013).
    await expect(f.exec(transferCall({ token, to: f.alice.address, amount: 101n })))
      .to.be.revertedWithCustomError(f.token, "ERC20InsufficientBalance")
      .withArgs(f.safeAddress, 100n, 101n);
    // Through MultiSendCallOnly too, and the native transfer before the failing one is undone.
    const batch = disperseCall(f.multiSendAddress, [
      { token: undefined, to: f.bob.address, amount: 5n },
      { token, to: f.alice.address, amount: 101n },
    ]);
    await expect(f.exec(batch))
      .to.be.revertedWithCustomError(f.token, "ERC20InsufficientBalance")
      .withArgs(f.safeAddress, 100n, 101n);
    expect(await f.nonce()).to.equal(0n);
    expect(await ethers.provider.getBalance(f.safeAddress)).to.equal(parseEther("1"));
  });

  it("refuses payouts MultiSendCallOnly would misread or that would only spend a nonce", async () => {
    const f = await loadFixture(fixture);
    const nft = await f.nft.getAddress();

    expect(() => encodeMultiSend([{ to: ZeroAddress, value: 1n, data: "0x" }])).to.throw(/zero address/);
    expect(() => disperseCall(f.multiSendAddress, [])).to.throw(/at least one transfer/);
    expect(() =>
      disperseNftCall(f.multiSendAddress, f.safeAddress, [
        { standard: "erc721", token: nft, to: f.alice.address, tokenId: 1n, amount: 2n },
      ]),
    ).to.throw(/exactly one token/);
    expect(() => safeInitializer([], f.handlerAddress)).to.throw(/at least one owner/);
  });
});
