import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { id, namehash, ZeroAddress, ZeroHash } from "ethers";

async function fixture() {
  const [deployer, alice, bob, resolver] = await ethers.getSigners();
  const registry = await ethers.deployContract("TestENSRegistry");
  return { registry, deployer: deployer!, alice: alice!, bob: bob!, resolver: resolver! };
}

describe("TestENSRegistry", () => {
  it("gives the root node to the deployer", async () => {
    const { registry, deployer } = await loadFixture(fixture);
    expect(await registry.owner(ZeroHash)).to.equal(deployer.address);
    expect(await registry.recordExists(ZeroHash)).to.be.true;
    expect(await registry.recordExists(namehash("eth"))).to.be.false;
    expect(await registry.owner(namehash("eth"))).to.equal(ZeroAddress);
  });

  it("creates subnodes at their EIP-137 namehash", async () => {
    const { registry, alice } = await loadFixture(fixture);
    expect(await registry.setSubnodeOwner.staticCall(ZeroHash, id("eth"), alice.address)).to.equal(namehash("eth"));
    await expect(registry.setSubnodeOwner(ZeroHash, id("eth"), alice.address))
      .to.emit(registry, "NewOwner")
      .withArgs(ZeroHash, id("eth"), alice.address);
    await registry.connect(alice).setSubnodeOwner(namehash("eth"), id("idwallet"), alice.address);
    expect(await registry.owner(namehash("idwallet.eth"))).to.equal(alice.address);
    expect(await registry.recordExists(namehash("idwallet.eth"))).to.be.true;
  });

  it("lets only a node's owner create its subnodes", async () => {
    const { registry, alice, bob } = await loadFixture(fixture);
    await registry.setSubnodeOwner(ZeroHash, id("eth"), alice.address);
    await expect(registry.connect(bob).setSubnodeOwner(namehash("eth"), id("idwallet"), bob.address))
      .to.be.revertedWithCustomError(registry, "TestENSRegistryUnauthorized")
      .withArgs(namehash("eth"), bob.address);
    await expect(registry.connect(bob).setSubnodeRecord(namehash("eth"), id("idwallet"), bob.address, bob.address, 1))
      .to.be.revertedWithCustomError(registry, "TestENSRegistryUnauthorized")
      .withArgs(namehash("eth"), bob.address);
  });

  it("lets the owner set the resolver and TTL, and no one else", async () => {
    const { registry, alice, bob, resolver } = await loadFixture(fixture);
    const node = namehash("eth");
    await registry.setSubnodeOwner(ZeroHash, id("eth"), alice.address);
    await expect(registry.connect(alice).setResolver(node, resolver.address))
      .to.emit(registry, "NewResolver")
      .withArgs(node, resolver.address);
    await expect(registry.connect(alice).setTTL(node, 300)).to.emit(registry, "NewTTL").withArgs(node, 300);
    expect(await registry.resolver(node)).to.equal(resolver.address);
    expect(await registry.ttl(node)).to.equal(300n);
    await expect(registry.connect(bob).setResolver(node, bob.address))
      .to.be.revertedWithCustomError(registry, "TestENSRegistryUnauthorized")
      .withArgs(node, bob.address);
    await expect(registry.connect(bob).setTTL(node, 1))
      .to.be.revertedWithCustomError(registry, "TestENSRegistryUnauthorized")
      .withArgs(node, bob.address);
  });

  it("transfers a node: the new owner controls it, the old one no longer does", async () => {
    const { registry, alice, bob } = await loadFixture(fixture);
    const node = namehash("eth");
    await registry.setSubnodeOwner(ZeroHash, id("eth"), alice.address);
    await expect(registry.connect(alice).setOwner(node, bob.address))
      .to.emit(registry, "Transfer")
      .withArgs(node, bob.address);
    expect(await registry.owner(node)).to.equal(bob.address);
    await expect(registry.connect(alice).setOwner(node, alice.address))
      .to.be.revertedWithCustomError(registry, "TestENSRegistryUnauthorized")
      .withArgs(node, alice.address);
    await registry.connect(bob).setTTL(node, 5);
    expect(await registry.ttl(node)).to.equal(5n);
  });

  it("sets a subnode's owner, resolver and TTL at once, and keeps them when the subnode is reassigned", async () => {
    const { registry, alice, bob, resolver } = await loadFixture(fixture);
    const node = namehash("eth");
    await expect(registry.setSubnodeRecord(ZeroHash, id("eth"), alice.address, resolver.address, 60))
      .to.emit(registry, "NewOwner")
      .withArgs(ZeroHash, id("eth"), alice.address)
      .and.to.emit(registry, "NewResolver")
      .withArgs(node, resolver.address)
      .and.to.emit(registry, "NewTTL")
      .withArgs(node, 60);
    expect(await registry.owner(node)).to.equal(alice.address);
    expect(await registry.resolver(node)).to.equal(resolver.address);
    expect(await registry.ttl(node)).to.equal(60n);
    await registry.setSubnodeOwner(ZeroHash, id("eth"), bob.address);
    expect(await registry.owner(node)).to.equal(bob.address);
    expect(await registry.resolver(node)).to.equal(resolver.address);
    expect(await registry.ttl(node)).to.equal(60n);
  });
});
