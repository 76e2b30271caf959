import { type Signer, ZeroHash, ensNormalize, id, namehash } from "ethers";
import { TestENSRegistry__factory } from "../../typechain-types";

/** The ENS domain names live under unless ENS_DOMAIN says otherwise (as the service's configuration). */
export const DEFAULT_ENS_DOMAIN = "idwallet.eth";

/** The ENS registry on Ethereum mainnet and its testnets (EIP-137). */
export const ENS_REGISTRY_MAINNET = "0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e";

/** Points `domain` at `resolver` in the ENS registry at `registry`; the signer must own the domain. */
export async function setDomainResolver(
  registry: string,
  domainOwner: Signer,
  domain: string,
  resolver: string,
  log: (line: string) => void = () => undefined,
): Promise<void> {
  const ens = TestENSRegistry__factory.connect(registry, domainOwner);
  const node = namehash(ensNormalize(domain));
  const owner = await ens.owner(node);
  if (owner.toLowerCase() !== (await domainOwner.getAddress()).toLowerCase()) {
    throw new Error(`${domain} is owned by ${owner}, not by the given key`);
  }
  if ((await ens.resolver(node)).toLowerCase() === resolver.toLowerCase())
    return log(`${domain} already resolves through ${resolver}`);
  await (await ens.setResolver(node, resolver)).wait();
  log(`${domain} now resolves through ${resolver}`);
}

/**
 * Local chains only: deploys a test ENS registry (EIP-137), creates every level of `domain` for the
 * deployer, and points the domain at `resolver`, so wallets on the local chain resolve names at once.
 */
export async function deployTestEnsDomain(deployer: Signer, domain: string, resolver: string): Promise<string> {
  const ens = await new TestENSRegistry__factory(deployer).deploy();
  await ens.waitForDeployment();
  const owner = await deployer.getAddress();
  // Root first: eth, then idwallet.eth, ...
  let name = "";
  for (const label of ensNormalize(domain).split(".").reverse()) {
    await (await ens.setSubnodeOwner(name === "" ? ZeroHash : namehash(name), id(label), owner)).wait();
    name = name === "" ? label : `${label}.${name}`;
  }
  await (await ens.setResolver(namehash(name), resolver)).wait();
  return ens.getAddress();
}
