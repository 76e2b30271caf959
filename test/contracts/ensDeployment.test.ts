import { expect } from "chai";
import { Wallet, namehash } from "ethers";
import type { ChainClient } from "../../gateway/chains/clients";
import { WALLET_CHAIN_IDS } from "../../gateway/ens/coinTypes";
import { EnsResolverMismatchError, verifyEnsResolver } from "../../gateway/ens/resolverCheck";
import { proxyInitCodeHash } from "../../gateway/identity/walletAddress";
import { deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { deployTestEnsDomain, setDomainResolver } from "../../scripts/deployment/ensDomain";
import {
  IdwalletResolver__factory,
  KernelAccountFactory__factory,
  TestENSRegistry__factory,
} from "../../typechain-types";
import { startSecondChain } from "../helpers/secondChain";

describe("ENS deployment", () => {
  it("configures the IdwalletResolver's wallets, domain, chains, signers and gateway URL, and links a domain to it", async () => {
    const provider = await startSecondChain(31337);
    const [adminAddress, strangerAddress] = (await provider.listAccounts()).map((a) => a.address);
    const admin = await provider.getSigner(adminAddress);
    const ccipKey = Wallet.createRandom();
    const url = "https://gateway.example/ccip/{sender}/{data}.json";
    const options = {
      admin: adminAddress!,
      ensDomain: "example.eth",
      walletSigners: [],
      sponsorSigners: [],
      ccipSigners: [ccipKey.address],
      ccipUrls: [url],
    };
    const { contracts } = await deployIdwallet(admin, options);
    const resolver = IdwalletResolver__factory.connect(contracts.ensResolver, provider);
    expect(await resolver.owner()).to.equal(adminAddress);
    expect(await resolver.isSigner(ccipKey.address)).to.equal(true);
    expect(await resolver.urls()).to.deep.equal([url]);
    // The wallets of the deployed factory, under the given domain, on every registry chain but mainnet (60).
    expect(await resolver.kernelFactory()).to.equal(contracts.kernelFactory);
    const implementation = await KernelAccountFactory__factory.connect(
      contracts.kernelFactory,
      provider,
    ).accountImplementation();
    expect(await resolver.walletInitCodeHash()).to.equal(proxyInitCodeHash(implementation));
    expect(await resolver.domainNode()).to.equal(namehash("example.eth"));
    expect(WALLET_CHAIN_IDS).to.include.members([137, 8453, 42161, 31337]).and.not.include(1);
    for (const chainId of WALLET_CHAIN_IDS) expect(await resolver.isChainAnswered(chainId)).to.equal(true);

    // Nothing is sent again when everything is in place.
    const nonce = await provider.getTransactionCount(adminAddress!);
    await deployIdwallet(admin, options);
    expect(await provider.getTransactionCount(adminAddress!)).to.equal(nonce);

    const registry = await deployTestEnsDomain(admin, "example.eth", strangerAddress!);
    const ens = TestENSRegistry__factory.connect(registry, provider);
    expect(await ens.owner(namehash("example.eth"))).to.equal(adminAddress);
    await setDomainResolver(registry, admin, "example.eth", contracts.ensResolver);
    expect(await ens.resolver(namehash("example.eth"))).to.equal(contracts.ensResolver);

    const notOwner = await provider.getSigner(strangerAddress);
    let refused: unknown;
    await setDomainResolver(registry, notOwner, "example.eth", strangerAddress!).catch((e: unknown) => (refused = e));
    expect(String(refused)).to.match(/example\.eth is owned by/);
  });

  it("leaves the resolver's chains to the admin when the deployer is not the admin", async () => {
    const provider = await startSecondChain(31337);
    const [deployerAddress, adminAddress] = (await provider.listAccounts()).map((a) => a.address);
    const deployer = await provider.getSigner(deployerAddress);
    const { contracts, pendingAdminActions } = await deployIdwallet(deployer, {
      admin: adminAddress!,
      walletSigners: [],
      sponsorSigners: [],
    });
    expect(await IdwalletResolver__factory.connect(contracts.ensResolver, provider).isChainAnswered(8453)).to.equal(
      false,
    );
    expect(pendingAdminActions).to.include(
      `IdwalletResolver(${contracts.ensResolver}).setChains(${JSON.stringify(WALLET_CHAIN_IDS)}, true)`,
    );
  });

  it("a service whose factory or domain is not its deployed resolver's refuses to start; an OffchainResolver is not read", async () => {
    const provider = await startSecondChain(31337);
    const [adminAddress] = (await provider.listAccounts()).map((a) => a.address);
    const admin = await provider.getSigner(adminAddress);
    const { contracts } = await deployIdwallet(admin, {
      admin: adminAddress!,
      ensDomain: "example.eth",
      walletSigners: [],
      sponsorSigners: [],
      ccipSigners: [],
      ccipUrls: [],
    });
    const chains = new Map([["localhost", { name: "localhost", chainId: 31337, provider } as unknown as ChainClient]]);
    const settings = { resolver: contracts.ensResolver, chain: "localhost", domain: "example.eth" };
    expect(await verifyEnsResolver(settings, contracts.kernelFactory, chains)).to.equal("checked");
    // Another factory: names would resolve on chain to wallets /v1/resolver never gives.
    const error = await verifyEnsResolver(settings, contracts.baseFactory, chains).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(EnsResolverMismatchError);
    expect(String(error)).to.match(/another kernelFactory, walletInitCodeHash than this service's/);
    const domain = await verifyEnsResolver({ ...settings, domain: "other.eth" }, contracts.kernelFactory, chains).catch(
      (e: unknown) => e,
    );
    expect(String(domain)).to.match(/another domainNode/);
    // A contract without the getters (the first resolver, or anything else) answers through the gateway only.
    const offchain = { ...settings, resolver: contracts.kernelFactory };
    expect(await verifyEnsResolver(offchain, contracts.baseFactory, chains)).to.equal("not checked");
    expect(await verifyEnsResolver({ ...settings, chain: "eth" }, contracts.baseFactory, chains)).to.equal(
      "not checked",
    );
  });
});
