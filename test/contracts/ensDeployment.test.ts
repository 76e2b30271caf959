import { expect } from "chai";
import { Wallet, namehash } from "ethers";
import { deployIdwallet } from "../../scripts/deployment/deployIdwallet";
import { deployTestEnsDomain, setDomainResolver } from "../../scripts/deployment/ensDomain";
import { OffchainResolver__factory, TestENSRegistry__factory } from "../../typechain-types";
import { startSecondChain } from "../helpers/secondChain";

describe("ENS deployment", () => {
  it("configures the OffchainResolver's signers and gateway URL, and links a domain to it", async () => {
    const provider = await startSecondChain(31337);
    const [adminAddress, strangerAddress] = (await provider.listAccounts()).map((a) => a.address);
    const admin = await provider.getSigner(adminAddress);
    const ccipKey = Wallet.createRandom();
    const url = "https://gateway.example/ccip/{sender}/{data}.json";
    const options = {
      admin: adminAddress!,
      walletSigners: [],
      sponsorSigners: [],
      ccipSigners: [ccipKey.address],
      ccipUrls: [url],
    };
    const { contracts } = await deployIdwallet(admin, options);
    const resolver = OffchainResolver__factory.connect(contracts.offchainResolver, provider);
    expect(await resolver.owner()).to.equal(adminAddress);
    expect(await resolver.isSigner(ccipKey.address)).to.equal(true);
    expect(await resolver.urls()).to.deep.equal([url]);

    // Nothing is sent again when everything is in place.
    const nonce = await provider.getTransactionCount(adminAddress!);
    await deployIdwallet(admin, options);
    expect(await provider.getTransactionCount(adminAddress!)).to.equal(nonce);

    const registry = await deployTestEnsDomain(admin, "example.eth", strangerAddress!);
    const ens = TestENSRegistry__factory.connect(registry, provider);
    expect(await ens.owner(namehash("example.eth"))).to.equal(adminAddress);
    await setDomainResolver(registry, admin, "example.eth", contracts.offchainResolver);
    expect(await ens.resolver(namehash("example.eth"))).to.equal(contracts.offchainResolver);

    const notOwner = await provider.getSigner(strangerAddress);
    let refused: unknown;
    await setDomainResolver(registry, notOwner, "example.eth", strangerAddress!).catch((e: unknown) => (refused = e));
    expect(String(refused)).to.match(/example\.eth is owned by/);
  });
});
