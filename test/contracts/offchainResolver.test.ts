import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import {
  AbiCoder,
  type BaseWallet,
  dnsEncode,
  id,
  namehash,
  recoverAddress,
  Wallet,
  ZeroAddress,
  ZeroHash,
} from "ethers";
import { ccipSignatureHash } from "../../gateway/ens/ccipSignature";
import { signCcipResponse } from "../helpers/ccipResponses";
import { IResolverService__factory } from "../../typechain-types";
import { revertData } from "../helpers/revertData";
import { StubGatewayProvider } from "../helpers/stubGatewayProvider";

const abi = AbiCoder.defaultAbiCoder();
const resolverService = IResolverService__factory.createInterface();
const records = new ethers.Interface([
  "function addr(bytes32 node) view returns (address)",
  "function text(bytes32 node, string key) view returns (string)",
]);
const URLS = ["https://gateway.example/ens/{sender}/{data}.json", "https://backup.example/ens"];
const NAME = "alice.tel.idwallet.eth";

/** The ENSIP-10 query a client sends for `addr(name)`, and the request the gateway is asked to sign for. */
function addrQuery(name: string) {
  const dnsName = dnsEncode(name);
  const data = records.encodeFunctionData("addr", [namehash(name)]);
  return { dnsName, data, request: resolverService.encodeFunctionData("resolve", [dnsName, data]) };
}

async function fixture() {
  const [owner, stranger] = await ethers.getSigners();
  const resolver = await ethers.deployContract("OffchainResolver", [owner!.address]);
  const harness = await ethers.deployContract("SignatureVerifierHarness");
  const target = await resolver.getAddress();
  const signerA = Wallet.createRandom();
  const signerB = Wallet.createRandom();
  await resolver.setUrls(URLS);
  await resolver.addSigner(signerA.address);

  const query = addrQuery(NAME);
  const wallet = Wallet.createRandom().address;
  const result = abi.encode(["address"], [wallet]);
  const now = await time.latest();
  /** A gateway answer to `query`, signed by `key` (by default for this resolver, valid for an hour). */
  const answer = (key: BaseWallet, o: { expires?: number; request?: string; target?: string } = {}) =>
    signCcipResponse(key.signingKey, o.target ?? target, o.expires ?? now + 3600, o.request ?? query.request, result);

  return {
    owner: owner!,
    stranger: stranger!,
    resolver,
    harness,
    target,
    signerA,
    signerB,
    query,
    wallet,
    result,
    now,
    answer,
  };
}

describe("OffchainResolver", () => {
  describe("signature hash", () => {
    it("is computed the same in TypeScript and Solidity", async () => {
      const { harness, target, query, result } = await loadFixture(fixture);
      for (const expires of [0n, 1_700_000_000n, 2n ** 64n - 1n]) {
        expect(await harness.makeSignatureHash(target, expires, query.request, result)).to.equal(
          ccipSignatureHash(target, expires, query.request, result),
        );
      }
      expect(await harness.makeSignatureHash(target, 7, "0x", "0x")).to.equal(ccipSignatureHash(target, 7, "0x", "0x"));
    });

    it("is recovered by the contract from the response the TypeScript signs", async () => {
      const { harness, signerA, query, result, now } = await loadFixture(fixture);
      const response = signCcipResponse(
        signerA.signingKey,
        await harness.getAddress(),
        now + 60,
        query.request,
        result,
      );
      const [signer, returned] = await harness.verify(query.request, response);
      expect(signer).to.equal(signerA.address);
      expect(returned).to.equal(result);
    });

    it("rejects a malformed signature", async () => {
      const { resolver, query, result, now } = await loadFixture(fixture);
      const response = abi.encode(["bytes", "uint64", "bytes"], [result, now + 60, `0x${"11".repeat(64)}`]);
      await expect(resolver.resolveWithProof(response, query.request)).to.be.revertedWithCustomError(
        resolver,
        "SignatureVerifierInvalidSignature",
      );
    });
  });

  describe("resolve", () => {
    it("reverts OffchainLookup (EIP-3668) with the gateway call and resolveWithProof as callback", async () => {
      const { resolver, target, query } = await loadFixture(fixture);
      const data = await revertData(resolver.resolve(query.dnsName, query.data));
      const lookup = resolver.interface.parseError(data);
      expect(lookup?.name).to.equal("OffchainLookup");
      expect(lookup?.selector).to.equal("0x556f1830");
      const [sender, urls, callData, callbackFunction, extraData] = lookup!.args;
      expect(sender).to.equal(target);
      expect([...urls]).to.deep.equal(URLS);
      expect(callData).to.equal(query.request);
      expect(callbackFunction).to.equal(resolver.interface.getFunction("resolveWithProof").selector);
      expect(extraData).to.equal(callData);
      const [name, call] = resolverService.decodeFunctionData("resolve", callData);
      expect(name).to.equal(query.dnsName);
      expect(call).to.equal(query.data);
    });

    it("lets ethers v6 resolve a subname (ENSIP-10 wildcard, EIP-3668 lookup and callback)", async () => {
      const { owner, target, signerA, wallet, now } = await loadFixture(fixture);
      const registry = await ethers.deployContract("TestENSRegistry");
      await registry.setSubnodeOwner(ZeroHash, id("eth"), owner.address);
      await registry.setSubnodeRecord(namehash("eth"), id("idwallet"), owner.address, target, 0);
      const asked: string[] = [];
      const client = new StubGatewayProvider(await registry.getAddress(), (callData, to) => {
        asked.push(callData);
        return signCcipResponse(signerA.signingKey, to, now + 3600, callData, abi.encode(["address"], [wallet]));
      });
      expect(await client.resolveName(NAME)).to.equal(wallet);
      expect(asked).to.deep.equal([addrQuery(NAME).request]);
    });

    it("reverts when no gateway URL is set", async () => {
      const { owner, resolver, query } = await loadFixture(fixture);
      await resolver.setUrls([]);
      await expect(resolver.resolve(query.dnsName, query.data)).to.be.revertedWithCustomError(
        resolver,
        "OffchainResolverNoUrls",
      );
      const fresh = await ethers.deployContract("OffchainResolver", [owner.address]);
      await expect(fresh.resolve(query.dnsName, query.data)).to.be.revertedWithCustomError(
        fresh,
        "OffchainResolverNoUrls",
      );
    });
  });

  describe("resolveWithProof", () => {
    it("returns the result of an answer a signer signed for the lookup's request", async () => {
      const { resolver, signerA, query, wallet, answer } = await loadFixture(fixture);
      const lookup = resolver.interface.parseError(await revertData(resolver.resolve(query.dnsName, query.data)))!;
      const extraData = lookup.args[4] as string;
      const returned = await resolver.resolveWithProof(answer(signerA), extraData);
      expect(records.decodeFunctionResult("addr", returned)[0]).to.equal(wallet);
    });

    it("rejects an answer signed by a key that is not a signer", async () => {
      const { resolver, signerB, query, answer } = await loadFixture(fixture);
      await expect(resolver.resolveWithProof(answer(signerB), query.request))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(signerB.address);
    });

    it("rejects an expired answer", async () => {
      const { resolver, signerA, query, now, answer } = await loadFixture(fixture);
      await expect(resolver.resolveWithProof(answer(signerA, { expires: now - 1 }), query.request))
        .to.be.revertedWithCustomError(resolver, "SignatureVerifierExpired")
        .withArgs(now - 1);
    });

    it("accepts an answer until it expires, not after", async () => {
      const { resolver, signerA, query, result, now, answer } = await loadFixture(fixture);
      const response = answer(signerA, { expires: now + 100 });
      expect(await resolver.resolveWithProof(response, query.request)).to.equal(result);
      await time.increaseTo(now + 101);
      await expect(resolver.resolveWithProof(response, query.request))
        .to.be.revertedWithCustomError(resolver, "SignatureVerifierExpired")
        .withArgs(now + 100);
    });

    it("rejects an answer signed for another name or record (a different signer is recovered)", async () => {
      const { resolver, target, signerA, query, result, now, answer } = await loadFixture(fixture);
      for (const other of [
        addrQuery("bob.tel.idwallet.eth").request,
        resolverService.encodeFunctionData("resolve", [
          query.dnsName,
          records.encodeFunctionData("text", [namehash(NAME), "url"]),
        ]),
      ]) {
        const response = answer(signerA, { request: other });
        const [, , sig] = abi.decode(["bytes", "uint64", "bytes"], response);
        const recovered = recoverAddress(ccipSignatureHash(target, now + 3600, query.request, result), sig);
        expect(recovered).to.not.equal(signerA.address);
        await expect(resolver.resolveWithProof(response, query.request))
          .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
          .withArgs(recovered);
      }
    });

    it("rejects an answer signed for another resolver", async () => {
      const { resolver, stranger, signerA, query, result, now, answer } = await loadFixture(fixture);
      const response = answer(signerA, { target: stranger.address });
      const [, , sig] = abi.decode(["bytes", "uint64", "bytes"], response);
      const recovered = recoverAddress(
        ccipSignatureHash(await resolver.getAddress(), now + 3600, query.request, result),
        sig,
      );
      await expect(resolver.resolveWithProof(response, query.request))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(recovered);
    });

    it("rejects a removed signer's answers at once", async () => {
      const { resolver, signerA, query, answer } = await loadFixture(fixture);
      const response = answer(signerA);
      await expect(resolver.removeSigner(signerA.address)).to.emit(resolver, "SignerRemoved").withArgs(signerA.address);
      expect(await resolver.isSigner(signerA.address)).to.be.false;
      await expect(resolver.resolveWithProof(response, query.request))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(signerA.address);
    });

    it("accepts both keys during a rotation, then only the new one", async () => {
      const { resolver, signerA, signerB, query, result, answer } = await loadFixture(fixture);
      await expect(resolver.addSigner(signerB.address)).to.emit(resolver, "SignerAdded").withArgs(signerB.address);
      expect(await resolver.resolveWithProof(answer(signerA), query.request)).to.equal(result);
      expect(await resolver.resolveWithProof(answer(signerB), query.request)).to.equal(result);
      await resolver.removeSigner(signerA.address);
      expect(await resolver.resolveWithProof(answer(signerB), query.request)).to.equal(result);
      await expect(resolver.resolveWithProof(answer(signerA), query.request))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(signerA.address);
    });
  });

  describe("administration", () => {
    it("is owned by the constructor argument, not the deployer (deterministic deployment)", async () => {
      const { owner, stranger } = await loadFixture(fixture);
      const resolver = await ethers.deployContract("OffchainResolver", [owner.address], stranger);
      expect(await resolver.owner()).to.equal(owner.address);
    });

    it("lets the owner replace the URLs", async () => {
      const { resolver } = await loadFixture(fixture);
      const next = ["https://new.example/{sender}/{data}"];
      await expect(resolver.setUrls(next)).to.emit(resolver, "UrlsChanged").withArgs(next);
      expect(await resolver.urls()).to.deep.equal(next);
    });

    it("lets the owner add and remove signers", async () => {
      const { resolver, signerB } = await loadFixture(fixture);
      expect(await resolver.isSigner(signerB.address)).to.be.false;
      await expect(resolver.addSigner(signerB.address)).to.emit(resolver, "SignerAdded").withArgs(signerB.address);
      expect(await resolver.isSigner(signerB.address)).to.be.true;
      await expect(resolver.removeSigner(signerB.address)).to.emit(resolver, "SignerRemoved").withArgs(signerB.address);
      expect(await resolver.isSigner(signerB.address)).to.be.false;
    });

    it("rejects a zero, duplicate or missing signer", async () => {
      const { resolver, signerA, signerB } = await loadFixture(fixture);
      await expect(resolver.addSigner(ZeroAddress))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(ZeroAddress);
      await expect(resolver.addSigner(signerA.address))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(signerA.address);
      await expect(resolver.removeSigner(signerB.address))
        .to.be.revertedWithCustomError(resolver, "OffchainResolverInvalidSigner")
        .withArgs(signerB.address);
    });

    it("lets only the owner change URLs and signers", async () => {
      const { resolver, stranger, signerA, signerB } = await loadFixture(fixture);
      const asStranger = resolver.connect(stranger);
      for (const call of [
        () => asStranger.setUrls(["https://evil.example/{data}"]),
        () => asStranger.addSigner(signerB.address),
        () => asStranger.removeSigner(signerA.address),
      ]) {
        await expect(call())
          .to.be.revertedWithCustomError(resolver, "OwnableUnauthorizedAccount")
          .withArgs(stranger.address);
      }
      expect(await resolver.urls()).to.deep.equal(URLS);
      expect(await resolver.isSigner(signerA.address)).to.be.true;
    });

    it("transfers ownership in two steps", async () => {
      const { resolver, owner, stranger } = await loadFixture(fixture);
      await resolver.transferOwnership(stranger.address);
      expect(await resolver.owner()).to.equal(owner.address);
      await resolver.connect(stranger).acceptOwnership();
      expect(await resolver.owner()).to.equal(stranger.address);
    });

    it("supports IExtendedResolver (ENSIP-10) and ERC-165 only", async () => {
      const { resolver } = await loadFixture(fixture);
      expect(await resolver.supportsInterface("0x9061b923")).to.be.true;
      expect(await resolver.supportsInterface("0x01ffc9a7")).to.be.true;
      expect(await resolver.supportsInterface("0xffffffff")).to.be.false;
      expect(await resolver.supportsInterface("0x3b3b57de")).to.be.false;
    });
  });
});
