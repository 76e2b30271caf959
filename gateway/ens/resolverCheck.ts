import { Interface, getAddress, namehash } from "ethers";
import type { ChainClient } from "../chains/clients";
import { factoryImplementation, proxyInitCodeHash } from "../identity/walletAddress";

/** The on-chain derivation's parameters an IdwalletResolver was deployed with (constructor immutables). */
const RESOLVER = new Interface([
  "function kernelFactory() view returns (address)",
  "function walletInitCodeHash() view returns (bytes32)",
  "function domainNode() view returns (bytes32)",
]);

/** The deployed resolver derives other addresses than this service would answer. */
export class EnsResolverMismatchError extends Error {
  override readonly name = "EnsResolverMismatchError";
}

/**
 * Refuses to start when ENS_RESOLVER is an IdwalletResolver whose on-chain derivation disagrees with this
 * service: another kernel factory or wallet code would make names resolve, on chain and without the gateway, to
 * addresses that POST /v1/resolver does not give (payments to wallets nobody here controls). Another domain fails
 * safe (every name goes to the gateway) but is refused too. A resolver without these getters (OffchainResolver)
 * answers everything through the gateway and is not checked; neither is one on a chain this service has no RPC for.
 */
export async function verifyEnsResolver(
  settings: { readonly resolver?: string; readonly chain: string; readonly domain: string },
  kernelFactory: string,
  chains: ReadonlyMap<string, ChainClient>,
): Promise<"checked" | "not checked"> {
  const client = chains.get(settings.chain);
  if (settings.resolver === undefined || client === undefined) return "not checked";
  const read = async (name: "kernelFactory" | "walletInitCodeHash" | "domainNode"): Promise<string | undefined> => {
    try {
      const answer = await client.provider.send("eth_call", [
        { to: settings.resolver, data: RESOLVER.encodeFunctionData(name) },
        "latest",
      ]);
      return String(RESOLVER.decodeFunctionResult(name, answer)[0]);
    } catch {
      return undefined;
    }
  };
  const [factory, initCodeHash, domainNode] = await Promise.all([
    read("kernelFactory"),
    read("walletInitCodeHash"),
    read("domainNode"),
  ]);
  if (factory === undefined || initCodeHash === undefined || domainNode === undefined) return "not checked";
  const expected = {
    kernelFactory: getAddress(kernelFactory),
    walletInitCodeHash: proxyInitCodeHash(factoryImplementation(kernelFactory)),
    domainNode: namehash(settings.domain),
  };
  const found = { kernelFactory: getAddress(factory), walletInitCodeHash: initCodeHash, domainNode };
  const wrong = (Object.keys(expected) as (keyof typeof expected)[]).filter((key) => expected[key] !== found[key]);
  if (wrong.length > 0) {
    throw new EnsResolverMismatchError(
      `ENS_RESOLVER ${settings.resolver} on ${settings.chain} was deployed with another ${wrong.join(", ")} than ` +
        `this service's (CONTRACT_KERNEL_FACTORY, ENS_DOMAIN): its on-chain answers would not be /v1/resolver's`,
    );
  }
  return "checked";
}
