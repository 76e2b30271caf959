import { network } from "hardhat";
import { BrowserProvider, EnsPlugin, Network } from "ethers";

/** An ethers v6 client of the in-process chain whose CCIP-read "gateway" is `gateway(callData, resolver)`. */
export class StubGatewayProvider extends BrowserProvider {
  constructor(
    registry: string,
    private readonly gateway: (callData: string, resolver: string) => string,
  ) {
    const chain = new Network("hardhat", 31337n);
    chain.attachPlugin(new EnsPlugin(registry, 31337));
    super(network.provider, chain);
  }

  override async ccipReadFetch(tx: { to: string }, callData: string): Promise<string> {
    return this.gateway(callData, tx.to);
  }
}
