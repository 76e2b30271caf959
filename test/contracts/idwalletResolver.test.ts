import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { AbiCoder, Interface, Wallet, ZeroAddress, ZeroHash, id, namehash } from "ethers";
import { signCcipResponse } from "../helpers/ccipResponses";
import { type NameOwner, answerRecord } from "../../gateway/ens/records";
import { parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress, walletSalt } from "../../gateway/identity/walletAddress";
import { IResolverService__factory, IdwalletResolver__factory } from "../../typechain-types";
import { deployIdwalletFixture } from "../helpers/deployment";
import { rawDnsEncode, rawNamehash } from "../helpers/dnsNames";
import { StubGatewayProvider } from "../helpers/stubGatewayProvider";
import { revertData } from "../helpers/revertData";

const abi = AbiCoder.defaultAbiCoder();
const resolverService = IResolverService__factory.createInterface();
const records = new Interface([
  "function addr(bytes32 node) view returns (address)",
  "function addr(bytes32 node, uint256 coinType) view returns (bytes)",
  "function text(bytes32 node, string key) view returns (string)",
  "function contenthash(bytes32 node) view returns (bytes)",
  "function multicall(bytes[] data) returns (bytes[] results)",
]);
const URLS = ["https://gateway.example/ccip/{sender}/{data}.json"];
const DOMAIN = "idwallet.eth";
const EVM = 0x80000000n;

const addrCall = (name: string) => records.encodeFunctionData("addr(bytes32)", [rawNamehash(name)]);
const coinCall = (name: string, coinType: bigint) =>
  records.encodeFunctionData("addr(bytes32,uint256)", [rawNamehash(name), coinType]);
const textCall = (name: string, key: string) => records.encodeFunctionData("text", [rawNamehash(name), key]);
const multicall = (calls: string[]) => records.encodeFunctionData("multicall", [calls]);
/** abi.encode(bytes) of an address record: its 20 bytes (ENSIP-9). */
const addressBytes = (address: string) => abi.encode(["bytes"], [address]);
const EMPTY_BYTES = abi.encode(["bytes"], ["0x"]);

async function fixture() {
  const base = await deployIdwalletFixture();
  const { admin, stranger } = base;
  const resolver = IdwalletResolver__factory.connect(base.deployment.contracts.ensResolver, admin);
  const signerA = Wallet.createRandom();
  const signerB = Wallet.createRandom();
  await resolver.setUrls(URLS);
  await resolver.addSigner(signerA.address);
  const factory = base.deployment.contracts.kernelFactory;
  /** The wallet of a user id, as the service derives it. */
  const walletOf = (userId: string) => deriveWalletAddress(factory, "kernel", parseUserId(userId));
  /** Who the gateway says `userId` is, for comparing answers with gateway/ens/records.ts. */
  const ownerOf = (userId: string): NameOwner => ({ userId: parseUserId(userId), wallet: walletOf(userId) });
  /** resolve(name, data) with the name DNS-encoded as written. */
  const resolve = (name: string, data: string) => resolver.resolve(rawDnsEncode(name), data);
  /** The OffchainLookup a query reverts with, checked to carry exactly resolve(name, data) to the gateway. */
  const expectGateway = async (name: string, data: string) => {
    const lookup = resolver.interface.parseError(await revertData(resolve(name, data)));
    expect(lookup?.name, name).to.equal("OffchainLookup");
    const request = resolverService.encodeFunctionData("resolve", [rawDnsEncode(name), data]);
    expect(lookup!.args.toArray(true)).to.deep.equal([
      await resolver.getAddress(),
      URLS,
      request,
      resolver.interface.getFunction("resolveWithProof").selector,
      request,
    ]);
  };
  return { ...base, admin, stranger, resolver, signerA, signerB, factory, walletOf, ownerOf, resolve, expectGateway };
}

describe("IdwalletResolver", () => {
  describe("addresses derived on chain", () => {
    it("answers addr(node) with the factory's getAddress, with no gateway URL set", async () => {
      const { resolver, kernelFactory, resolve } = await loadFixture(fixture);
      await resolver.setUrls([]);
      const name = "alice.github.idwallet.eth";
      const onChain = await kernelFactory.getFunction("getAddress")(walletSalt("kernel", parseUserId("github:alice")));
      expect(await resolve(name, addrCall(name))).to.equal(abi.encode(["address"], [onChain]));
      expect(await resolver.walletOf(rawDnsEncode(name))).to.deep.equal([true, onChain]);
    });

    it("answers each record exactly as the gateway would (addr, every coin type, multicall)", async () => {
      const { resolve, ownerOf } = await loadFixture(fixture);
      for (const [name, userId] of [
        ["alice.github.idwallet.eth", "github:alice"],
        ["15551234567.tel.idwallet.eth", "tel:15551234567"],
        ["alice.at.example.com.email.idwallet.eth", "email:alice@example.com"],
        ["durov.telegram.idwallet.eth", "telegram:durov"],
      ]) {
        const calls = [
          addrCall(name!),
          ...[60n, EVM, EVM | 8453n, EVM | 137n, EVM | 31337n, 0n, EVM | 1n, EVM | 999_999n, (2n ** 32n) | 8453n].map(
            (coinType) => coinCall(name!, coinType),
          ),
        ];
        for (const data of [...calls, multicall(calls), multicall([])]) {
          expect(await resolve(name!, data), `${name} ${data.slice(0, 10)}`).to.equal(
            answerRecord(data, ownerOf(userId!)),
          );
        }
      }
    });

    it("answers the wallet for coin types 60, 0x80000000 and the owner's chains, empty bytes for others", async () => {
      const { resolver, resolve, walletOf } = await loadFixture(fixture);
      const name = "alice.github.idwallet.eth";
      const wallet = walletOf("github:alice");
      for (const coinType of [60n, EVM, EVM | 8453n, EVM | 42161n]) {
        expect(await resolve(name, coinCall(name, coinType))).to.equal(addressBytes(wallet));
      }
      // Bitcoin, mainnet's ENSIP-11 spelling (its coin type is 60), a chain not set, a coin type above 32 bits.
      for (const coinType of [0n, EVM | 1n, EVM | 424242n, (2n ** 32n) | 8453n]) {
        expect(await resolve(name, coinCall(name, coinType))).to.equal(EMPTY_BYTES);
      }
      await expect(resolver.setChains([8453, 424242], false))
        .to.emit(resolver, "ChainsChanged")
        .withArgs([8453, 424242], false);
      expect(await resolve(name, coinCall(name, EVM | 8453n))).to.equal(EMPTY_BYTES);
      await resolver.setChains([424242], true);
      expect(await resolve(name, coinCall(name, EVM | 424242n))).to.equal(addressBytes(wallet));
    });

    it("reads user ids from names as the gateway does: dotted usernames, e-mail's at label, '-' for '_'", async () => {
      const { resolve, walletOf } = await loadFixture(fixture);
      for (const [name, userId] of [
        ["jack-dorsey.x.idwallet.eth", "x:jack_dorsey"],
        ["jack.twitter.idwallet.eth", "twitter:jack"],
        ["pavel-durov.telegram.idwallet.eth", "telegram:pavel_durov"],
        ["some.user-1.discord.idwallet.eth", "discord:some.user_1"],
        ["001234.abcdef0123456789.0042.apple.idwallet.eth", "apple:001234.abcdef0123456789.0042"],
        ["someone.at.gmail.com.google.idwallet.eth", "google:someone@gmail.com"],
        // The first `at` label is the @.
        ["a.at.b.at.example.com.email.idwallet.eth", "email:a@b.at.example.com"],
        ["first.last.at.sub.example.co.uk.email.idwallet.eth", "email:first.last@sub.example.co.uk"],
      ]) {
        expect(await resolve(name!, addrCall(name!)), name).to.equal(abi.encode(["address"], [walletOf(userId!)]));
      }
    });

    it("resolves names that break their provider's rule to nothing, not to an address nor to the gateway", async () => {
      const { resolver, resolve } = await loadFixture(fixture);
      await resolver.setUrls([]);
      for (const username of [
        // ENSIP-15: "--" as 3rd and 4th characters is not normalized.
        "ab--cd.x",
        "ab--cd.discord",
        "-alice.github",
        "alice-.github",
        "al--ice.github",
        "a".repeat(40) + ".github",
        "alice.eth.github",
        "0155512345.tel",
        "1234567.tel",
        "1".repeat(16) + ".tel",
        "1555.1234567.tel",
        "a".repeat(16) + ".x",
        "a-b.c.twitter",
        "abcd.telegram",
        "1abcde.telegram",
        "abcde-.telegram",
        "a.discord",
        "a".repeat(33) + ".discord",
        "abcdefg.apple",
        "alice.email",
        "alice.at.com.email",
        "at.example.com.email",
        "alice.example.com.google",
        // No username at all.
        "github",
      ]) {
        const name = `${username}.${DOMAIN}`;
        expect(await resolve(name, addrCall(name)), name).to.equal(abi.encode(["address"], [ZeroAddress]));
        expect(await resolve(name, coinCall(name, 60n)), name).to.equal(EMPTY_BYTES);
        expect(await resolver.walletOf(rawDnsEncode(name))).to.deep.equal([true, ZeroAddress]);
      }
    });

    it("an integrator keyed on the node is not answered for another name: a record call's node must be the name's", async () => {
      const { resolver, resolve } = await loadFixture(fixture);
      const alice = "alice.github.idwallet.eth";
      const bob = "bob.github.idwallet.eth";
      for (const data of [addrCall(bob), coinCall(bob, 60n), multicall([addrCall(alice), addrCall(bob)])]) {
        await expect(resolve(alice, data))
          .to.be.revertedWithCustomError(resolver, "IdwalletResolverNodeMismatch")
          .withArgs(rawNamehash(alice), rawNamehash(bob));
      }
    });

    it("reads a label of 255 bytes (the DNS maximum) instead of failing: an apple id of 255 characters", async () => {
      const { resolve, walletOf } = await loadFixture(fixture);
      const username = "a".repeat(255);
      const name = `${username}.apple.idwallet.eth`;
      expect(await resolve(name, addrCall(name))).to.equal(abi.encode(["address"], [walletOf(`apple:${username}`)]));
    });

    it("sends names it does not derive to the gateway: not plain ASCII, not built in, outside the domain, malformed", async () => {
      const { resolver, resolve, expectGateway } = await loadFixture(fixture);
      for (const name of [
        "ünïcödé.github.idwallet.eth",
        "Alice.github.idwallet.eth",
        "alice.GitHub.idwallet.eth",
        "_alice.github.idwallet.eth",
        "alice.myapp.idwallet.eth",
        "alice.github.other.eth",
        "idwallet.eth",
        "eth",
      ]) {
        await expectGateway(name, addrCall(name));
        expect(await resolver.walletOf(rawDnsEncode(name))).to.deep.equal([false, ZeroAddress]);
      }
      // A label running past the end, bytes after the terminator, no terminator.
      const good = rawDnsEncode("alice.github.idwallet.eth");
      for (const dnsName of [`0x09${good.slice(4)}`, `${good}00`, good.slice(0, -2), "0x"]) {
        await expect(resolver.resolve(dnsName, addrCall("alice.github.idwallet.eth"))).to.be.revertedWithCustomError(
          resolver,
          "OffchainLookup",
        );
      }
      await resolver.setUrls([]);
      await expect(resolve("alice.myapp.idwallet.eth", addrCall("x"))).to.be.revertedWithCustomError(
        resolver,
        "IdwalletResolverNoUrls",
      );
    });

    it("sends every other record, and a multicall with any other item, to the gateway", async () => {
      const { resolver, expectGateway } = await loadFixture(fixture);
      const name = "alice.github.idwallet.eth";
      for (const data of [
        textCall(name, "com.github"),
        records.encodeFunctionData("contenthash", [namehash(name)]),
        multicall([addrCall(name), textCall(name, "description")]),
        multicall([addrCall(name), multicall([addrCall(name)])]),
        // Not the exact ABI layout: trailing bytes.
        `${addrCall(name)}00`,
        `${coinCall(name, 60n)}00`,
        "0x",
      ]) {
        await expectGateway(name, data);
      }
      await resolver.setUrls([]);
      await expect(resolver.resolve(rawDnsEncode(name), textCall(name, "url"))).to.be.revertedWithCustomError(
        resolver,
        "IdwalletResolverNoUrls",
      );
    });
  });

  describe("through ethers v6 (ENSIP-10 wildcard)", () => {
    it("resolves derived names without the gateway, and asks the gateway for the rest", async () => {
      const { admin, resolver, signerA, walletOf } = await loadFixture(fixture);
      const registry = await ethers.deployContract("TestENSRegistry");
      await registry.setSubnodeOwner(ZeroHash, id("eth"), admin.address);
      await registry.setSubnodeRecord(namehash("eth"), id("idwallet"), admin.address, await resolver.getAddress(), 0);
      const asked: string[] = [];
      const expires = (await time.latest()) + 3600;
      const client = new StubGatewayProvider(await registry.getAddress(), (callData, to) => {
        asked.push(callData);
        const [, data] = resolverService.decodeFunctionData("resolve", callData);
        return signCcipResponse(signerA.signingKey, to, expires, callData, answerRecord(data as string, undefined));
      });
      expect(await client.resolveName("alice.github.idwallet.eth")).to.equal(walletOf("github:alice"));
      const ensResolver = await client.getResolver("jack-dorsey.x.idwallet.eth");
      expect(await ensResolver!.getAddress(8453)).to.equal(walletOf("x:jack_dorsey"));
      expect(asked).to.deep.equal([]);
      // A text record goes to the (stub) gateway, whose signed answer the resolver checks.
      expect(await ensResolver!.getText("com.twitter")).to.equal("");
      expect(asked).to.have.length(1);
    });
  });

  describe("gateway answers (EIP-3668)", () => {
    it("returns an answer a signer signed for the lookup's request", async () => {
      const { resolver, signerA, resolve } = await loadFixture(fixture);
      const name = "alice.github.idwallet.eth";
      const lookup = resolver.interface.parseError(await revertData(resolve(name, textCall(name, "com.github"))))!;
      const request = lookup.args[4] as string;
      const result = abi.encode(["string"], ["alice"]);
      const response = signCcipResponse(
        signerA.signingKey,
        await resolver.getAddress(),
        (await time.latest()) + 60,
        request,
        result,
      );
      expect(await resolver.resolveWithProof(response, request)).to.equal(result);
    });

    it("rejects an answer signed by a key that is not a signer, or expired", async () => {
      const { resolver, signerA, signerB } = await loadFixture(fixture);
      const request = resolverService.encodeFunctionData("resolve", [rawDnsEncode("a.myapp.idwallet.eth"), "0x"]);
      const target = await resolver.getAddress();
      const now = await time.latest();
      const result = abi.encode(["address"], [Wallet.createRandom().address]);
      await expect(
        resolver.resolveWithProof(signCcipResponse(signerB.signingKey, target, now + 60, request, result), request),
      )
        .to.be.revertedWithCustomError(resolver, "IdwalletResolverInvalidSigner")
        .withArgs(signerB.address);
      await expect(
        resolver.resolveWithProof(signCcipResponse(signerA.signingKey, target, now - 1, request, result), request),
      )
        .to.be.revertedWithCustomError(resolver, "SignatureVerifierExpired")
        .withArgs(now - 1);
    });
  });

  describe("interfaces", () => {
    it("advertises ERC-165 for every interface it serves and ERC-7996 resolve(multicall)", async () => {
      const { resolver } = await loadFixture(fixture);
      const selector = (signature: string) => id(signature).slice(0, 10);
      const interfaceIds = {
        IERC165: selector("supportsInterface(bytes4)"),
        IExtendedResolver: selector("resolve(bytes,bytes)"),
        IERC7996: selector("supportsFeature(bytes4)"),
      };
      expect(Object.values(interfaceIds)).to.deep.equal(["0x01ffc9a7", "0x9061b923", "0x582de3e7"]);
      for (const interfaceId of Object.values(interfaceIds))
        expect(await resolver.supportsInterface(interfaceId)).to.be.true;
      // The address records are answered only through resolve(name, data): a client that found their interfaces
      // would call addr(node) directly, which has no name to derive from.
      for (const other of [
        "0xffffffff",
        selector("addr(bytes32)"),
        selector("addr(bytes32,uint256)"),
        selector("text(bytes32,string)"),
        selector("contenthash(bytes32)"),
      ]) {
        expect(await resolver.supportsInterface(other)).to.be.false;
      }
      const multicallFeature = id("eth.ens.resolver.extended.multicall").slice(0, 10);
      expect(multicallFeature).to.equal("0x96b62db8");
      expect(await resolver.supportsFeature(multicallFeature)).to.be.true;
      expect(await resolver.supportsFeature(id("eth.ens.resolver.singular").slice(0, 10))).to.be.false;
    });
  });

  describe("administration", () => {
    it("is owned by the constructor argument, not the deployer (deterministic deployment)", async () => {
      const { admin, resolver, factory } = await loadFixture(fixture);
      expect(await resolver.owner()).to.equal(admin.address);
      expect(await resolver.kernelFactory()).to.equal(factory);
      expect(await resolver.domainNode()).to.equal(namehash(DOMAIN));
    });

    it("refuses chain ids without an ENSIP-11 coin type of their own", async () => {
      const { resolver } = await loadFixture(fixture);
      for (const chainId of [0n, 1n, EVM, 2n ** 255n]) {
        await expect(resolver.setChains([8453n, chainId], true))
          .to.be.revertedWithCustomError(resolver, "IdwalletResolverInvalidChain")
          .withArgs(chainId);
      }
    });

    it("lets only the owner change URLs, signers and chains", async () => {
      const { resolver, stranger, signerA, signerB } = await loadFixture(fixture);
      const asStranger = resolver.connect(stranger);
      for (const call of [
        () => asStranger.setUrls(["https://evil.example/{data}"]),
        () => asStranger.addSigner(signerB.address),
        () => asStranger.removeSigner(signerA.address),
        () => asStranger.setChains([8453], false),
      ]) {
        await expect(call())
          .to.be.revertedWithCustomError(resolver, "OwnableUnauthorizedAccount")
          .withArgs(stranger.address);
      }
      expect(await resolver.urls()).to.deep.equal(URLS);
      expect(await resolver.isSigner(signerA.address)).to.be.true;
      expect(await resolver.isChainAnswered(8453)).to.be.true;
    });

    it("adds and removes signers, rejecting a zero, duplicate or missing one", async () => {
      const { resolver, signerA, signerB } = await loadFixture(fixture);
      await expect(resolver.addSigner(signerB.address)).to.emit(resolver, "SignerAdded").withArgs(signerB.address);
      await expect(resolver.removeSigner(signerB.address)).to.emit(resolver, "SignerRemoved").withArgs(signerB.address);
      for (const [call, signer] of [
        [() => resolver.addSigner(ZeroAddress), ZeroAddress],
        [() => resolver.addSigner(signerA.address), signerA.address],
        [() => resolver.removeSigner(signerB.address), signerB.address],
      ] as const) {
        await expect(call()).to.be.revertedWithCustomError(resolver, "IdwalletResolverInvalidSigner").withArgs(signer);
      }
    });

    it("transfers ownership in two steps", async () => {
      const { resolver, admin, stranger } = await loadFixture(fixture);
      await resolver.transferOwnership(stranger.address);
      expect(await resolver.owner()).to.equal(admin.address);
      await resolver.connect(stranger).acceptOwnership();
      expect(await resolver.owner()).to.equal(stranger.address);
    });
  });

  describe("gas", () => {
    it("answers resolve(name, addr(node)) for a 30-character username in under 200k gas (eth_call)", async () => {
      const { resolver, walletOf } = await loadFixture(fixture);
      const username = "abcdefghijklmnopqrstuvwxyz0123";
      expect(username).to.have.length(30);
      const name = `${username}.github.idwallet.eth`;
      const data = resolver.interface.encodeFunctionData("resolve", [rawDnsEncode(name), addrCall(name)]);
      const call = { to: await resolver.getAddress(), data };
      expect(await ethers.provider.call(call)).to.equal(
        resolver.interface.encodeFunctionResult("resolve", [abi.encode(["address"], [walletOf(`github:${username}`)])]),
      );
      expect(await ethers.provider.estimateGas(call)).to.be.below(200_000n);
    });
  });
});
